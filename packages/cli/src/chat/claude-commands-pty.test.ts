// Claude Code's interactive commands that harness chat has no counterpart of (/theme, /config,
// /terminal-setup…) are answered by the chat, saying what to use here, instead of reaching the
// model as a prompt; a command of the project's own of such a name still goes to the agent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatInTerminal, fakeModelForFile, leaveChat, pause } from "../test-support.ts";

const model = fakeModelForFile();

function ownChat(t: { after(fn: () => unknown): void }, project: string) {
  const env = { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: model.fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0", NO_COLOR: "1" };
  return chatInTerminal(t, "--local", { cwd: project, env, columns: 80 });
}

test("/theme, /terminal-setup, /config and /bug say what harness chat has instead, without a model call", async (t) => {
  const project = model.dir("harness-cc-commands-");
  const before = model.fake.requests.length;
  const chat = ownChat(t, project);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/theme\r");
  await chat.shows(/follows the terminal's colours/);
  chat.type("/terminal-setup\r");
  await chat.shows(/nothing to set up/);
  chat.type("/config\r");
  await chat.shows(/settings\.json/);
  await chat.shows(/notifications follow Claude Code's "preferredNotifChannel"/);
  chat.type("/bug\r");
  await chat.shows(/an issue in harness's repository/);
  await pause(500);
  assert.equal(model.fake.requests.length, before, "the model was sent nothing");
  await leaveChat(chat);
});

test("a project command named as one of them goes to the agent as before", async (t) => {
  const project = model.dir("harness-cc-own-");
  mkdirSync(join(project, ".claude", "commands"), { recursive: true });
  writeFileSync(join(project, ".claude", "commands", "doctor.md"), "Check the project's health for me.\n");
  model.fake.push({ text: "All healthy." });
  const before = model.fake.requests.length;
  const chat = ownChat(t, project);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/doctor\r");
  const [request] = (await model.fake.waitForRequests(before + 1, 30_000)).slice(before); // a local chat starts its own server
  assert.match(JSON.stringify(request.body.messages.at(-1)), /Check the project's health/);
  await chat.shows(/All healthy\./);
  await leaveChat(chat);
});
