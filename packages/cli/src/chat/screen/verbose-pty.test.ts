// Ctrl+O in a chat at a terminal turns verbose output on and off, as Claude Code's does: from then
// on, tool calls show their input and output whole (as with --verbose), or again as an excerpt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { toolThenText } from "@harness/test-utils";
import { chatInTerminal, fakeModelForFile, leaveChat } from "../../test-support.ts";

const model = fakeModelForFile();

test("Ctrl+O shows the next tool calls whole, and Ctrl+O again goes back to excerpts", async (t) => {
  const project = model.dir("harness-ctrlo-");
  const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0", NO_COLOR: "1" };
  const chat = chatInTerminal(t, "--local --dangerously-skip-permissions", { cwd: project, env, columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  const count = (upTo: number, said: string) => {
    model.fake.push(...toolThenText("Bash", { command: `seq 1 ${upTo}` }, said));
    chat.type(`count to ${upTo}\r`);
    return chat.shows(new RegExp(said.replace(".", "\\.")));
  };
  await count(12, "Counted twelve.");
  assert.match(chat.rows().join("\n"), /… \+8 lines/);
  chat.type("\x0f");
  await chat.shows(/verbose output on/);
  await count(13, "Counted thirteen.");
  assert.match(chat.rows().join("\n"), /\n {5}11\n {5}12\n {5}13\n/, "every line of the output");
  chat.type("\x0f");
  await chat.shows(/verbose output off/);
  await count(14, "Counted fourteen.");
  assert.match(chat.rows().join("\n"), /… \+10 lines/);
  await leaveChat(chat);
});
