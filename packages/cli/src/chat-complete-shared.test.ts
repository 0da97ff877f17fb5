// Tab in a chat on a shared server: before a run, the agent's built-in commands; once a run of the
// session has said what it has, the commands of the server's project for that session too.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeAnthropic, HarnessProcess } from "@harness/test-utils";
import { bin, root, startChatServer } from "./test-support.ts";
import { inTerminal } from "./test-screen.ts";

let fake: FakeAnthropic;
let server: HarnessProcess;
let dataDir: string;
let stop: () => Promise<void>;

before(async () => {
  ({ fake, server, dataDir, stop } = await startChatServer("harness-chat-complete-shared-"));
});
after(() => stop());

test("a chat on a shared server completes the commands of the session's project once a run has said it has them", async (t) => {
  const commands = join(dataDir, "workspaces", "completer", "ships", ".claude", "commands");
  mkdirSync(commands, { recursive: true });
  writeFileSync(join(commands, "ship-it.md"), "Ship it.");
  const env = { ...process.env, NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "completer", TERM: "xterm", HARNESS_BUNDLE: "0" };
  const chat = inTerminal(t, `exec bash ${JSON.stringify(bin)} chat --session ships`, { cwd: root, env, columns: 80 });
  await chat.sees(/Ctrl-D leaves/);
  chat.type("/ship\t");
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.match(chat.rows().join("\n"), /^\/ship$/m, "nothing to complete before a run");
  chat.type("\x03");
  fake.push({ text: "Hello." });
  chat.type("hi\r");
  await chat.shows(/Hello\./);
  chat.type("/ship\t");
  await chat.bottom(/^\/ship-it$/);
  chat.type("\x03\x04");
  assert.equal(await chat.closed, 0);
});

test("a chat on a shared server completes an @path from the session's workspace there, not from its own directory", async (t) => {
  const notes = join(dataDir, "workspaces", "completer", "mentions", "notes");
  mkdirSync(notes, { recursive: true });
  writeFileSync(join(notes, "only-here.md"), "Only in the session's workspace.");
  const env = { ...process.env, NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "completer", TERM: "xterm", HARNESS_BUNDLE: "0" };
  const chat = inTerminal(t, `exec bash ${JSON.stringify(bin)} chat --session mentions`, { cwd: root, env, columns: 80 });
  await chat.sees(/Ctrl-D leaves/);
  chat.type("see @notes/on\t");
  await chat.bottom(/^see @notes\/only-here\.md\s*$/);
  chat.type("\x03");
  // The chat's own directory (the repository) holds packages/; the session's workspace does not.
  chat.type("see @packa\t");
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.match(chat.rows().join("\n"), /^see @packa$/m);
  chat.type("\x03\x04");
  assert.equal(await chat.closed, 0);
});
