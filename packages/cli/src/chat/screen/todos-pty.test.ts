// A chat at a real terminal shows the todo list a TodoWrite call sets, as Claude Code does: "Update
// Todos", then each item, ☒ done (dimmed, struck through), ☐ not yet, the one in progress in bold.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { toolThenText } from "@harness/test-utils";
import { chatInTerminal, fakeModelForFile, leaveChat } from "../../test-support.ts";

const model = fakeModelForFile();

const TODOS = [
  { content: "Write the parser", status: "completed", activeForm: "Writing the parser" },
  { content: "Test the parser against every sample file in the fixtures directory", status: "in_progress", activeForm: "Testing the parser" },
  { content: "Document it", status: "pending", activeForm: "Documenting it" },
];

/** A chat of its own, 60 columns wide, whose model sets TODOS; `env` adds to its environment. */
function planningChat(t: { after(fn: () => unknown): void }, env: Record<string, string>) {
  const project = model.dir("harness-todos-");
  model.fake.push(...toolThenText("TodoWrite", { todos: TODOS }, "Planned."));
  const chatEnv = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0", ...env };
  return chatInTerminal(t, "--local", { cwd: project, env: chatEnv, columns: 60 });
}

test("a TodoWrite call in a chat at a terminal shows its list, each item on one row of the terminal", async (t) => {
  const chat = planningChat(t, {});
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("plan the parser\r");
  await chat.shows(/Planned\./);
  const rows = chat.rows();
  const at = rows.indexOf("● Update Todos");
  assert.ok(at !== -1, rows.join("\n"));
  assert.deepEqual(rows.slice(at + 1, at + 4), ["  ⎿  ☒ Write the parser", "     ☐ Test the parser against every sample file in the fix…", "     ☐ Document it"]);
  assert.ok(!rows.some((row) => row.includes("Todos have been modified")), rows.join("\n"));
  assert.ok(chat.screen().includes("\x1b[2m☒ \x1b[9mWrite the parser"), "the item done is dimmed and struck through");
  assert.ok(chat.screen().includes("\x1b[1m☐ Test the parser"), "the item in progress is bold");
  await leaveChat(chat);
});

test("with NO_COLOR the list has the same marks, without colour", async (t) => {
  const chat = planningChat(t, { NO_COLOR: "1" });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("plan the parser\r");
  await chat.shows(/Planned\./);
  assert.match(chat.rows().join("\n"), /^● Update Todos\n {2}⎿ {2}☒ Write the parser\n {5}☐ Test the parser .*…\n {5}☐ Document it$/m);
  assert.doesNotMatch(chat.screen(), /\x1b\[(1|2|9)m/);
  await leaveChat(chat);
});

test("Ctrl+T shows the todo list as the last TodoWrite left it, or says there is none", async (t) => {
  const project = model.dir("harness-ctrlt-");
  const chat = chatInTerminal(t, "--local", { cwd: project, env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0", NO_COLOR: "1" }, columns: 60 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("\x14");
  await chat.shows(/no todo list yet/);
  model.fake.push(...toolThenText("TodoWrite", { todos: TODOS }, "Planned."));
  chat.type("plan the parser\r");
  await chat.shows(/Planned\./);
  chat.type("\x14");
  await chat.shows(/^Todos \(1 of 3 done\)\n {2}☒ Write the parser\n {2}☐ Test the parser .*…\n {2}☐ Document it$/m);
  await leaveChat(chat);
});
