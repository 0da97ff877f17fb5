// The settings' availableModels in `harness chat`, against a real server process and the fake
// Anthropic server: a /model the list leaves out is refused, between runs or during one, and the
// chat keeps its model. Checked on what the fake model server received.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ioFor, terminalChat } from "./test-support.ts";
import { chatServerForFile, pipedChat } from "../test-support.ts";

// The runs' user settings: the server's HOME (see startHarnessServer).
const server = chatServerForFile("harness-chat-models-", {}, (dataDir) => {
  mkdirSync(join(dataDir, "home", ".claude"), { recursive: true });
  writeFileSync(join(dataDir, "home", ".claude", "settings.json"), JSON.stringify({ availableModels: ["sonnet", "claude-haiku-4-5"] }));
});

/** `harness chat args…` with `input` as its piped standard input. */
const chat = (args: string[], input: string) => pipedChat(server.url, args, input);

const REFUSED = `✗ configure: model "opus" cannot be used here: the settings' availableModels allow only "sonnet", "claude-haiku-4-5"\n`;

test("a chat's /model naming a model the settings' availableModels leave out is refused, saying what is allowed, and the chat keeps its model", async () => {
  server.fake.push({ text: "on haiku" }, { text: "still haiku" });
  const before = server.fake.requests.length;
  const result = await chat(["--session", "refused-model"], "/model claude-haiku-4-5\nfirst\n/model opus\nsecond\n");
  assert.equal(result.code, 0, result.stderr);
  assert.ok(result.stderr.includes(REFUSED), result.stderr);
  assert.doesNotMatch(result.stderr, /\(model opus from/, "a model refused is not said to be taken");
  assert.equal(result.stdout, "on haiku\nstill haiku\n", result.stderr);
  assert.deepEqual(server.fake.requests.slice(before).map((r) => r.body.model), ["claude-haiku-4-5", "claude-haiku-4-5"]);
});

test("a /model naming a model the list leaves out, typed while a run is under way, is refused with an error and the run goes on with its model", async (t) => {
  const release = Promise.withResolvers<void>();
  t.after(() => release.resolve());
  server.fake.push({ toolUses: [{ name: "Bash", input: { command: "echo hi" } }], hold: release.promise }, { text: "Done on haiku." }, { text: "Next run on haiku." });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, server.url, "tester", "refused-during-run");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/mode fullAuto\r/model claude-haiku-4-5\r");
  await chat.sees(/model claude-haiku-4-5 from the next model call on/);
  chat.type("go\r");
  for (const start = Date.now(); server.fake.requests.length === before && Date.now() - start < 20_000; ) await ioFor(10);
  chat.type("/model opus\r");
  await chat.sees(/✗ configure: model "opus" cannot be used here: the settings' availableModels allow only "sonnet", "claude-haiku-4-5"/);
  release.resolve();
  await chat.sees(/Done on haiku\./);
  chat.type("again\r");
  await chat.sees(/Next run on haiku\./);
  assert.deepEqual(server.fake.requests.slice(before).map((r) => r.body.model), ["claude-haiku-4-5", "claude-haiku-4-5", "claude-haiku-4-5"], "the run, and the next, keep the chat's model");
  chat.end();
  assert.equal(await chat.status, 0);
});
