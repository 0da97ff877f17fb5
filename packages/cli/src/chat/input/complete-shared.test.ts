// Tab in a chat on a shared server: before a run, the agent's built-in commands; once a run of the
// session has said what it has, the commands of the server's project for that session too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSessionsApi } from "@harness/client";
import { completeListedPath, completePath } from "./complete-paths.ts";
import { bin, chatServerForFile, root } from "../../test-support.ts";
import { inTerminal } from "../../test-screen.ts";

const server = chatServerForFile("harness-chat-complete-shared-");

test("a chat on a shared server completes the commands of the session's project once a run has said it has them", async (t) => {
  const commands = join(server.dataDir, "workspaces", "completer", "ships", ".claude", "commands");
  mkdirSync(commands, { recursive: true });
  writeFileSync(join(commands, "ship-it.md"), "Ship it.");
  const env = { ...process.env, NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "completer", TERM: "xterm", HARNESS_BUNDLE: "0" };
  const chat = inTerminal(t, `exec bash ${JSON.stringify(bin)} chat --session ships`, { cwd: root, env, columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/ship");
  await chat.bottom(/^\/ship$/);
  chat.type("\t");
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.match(chat.rows().join("\n"), /^\/ship$/m, "nothing to complete before a run");
  chat.type("\x03");
  server.fake.push({ text: "Hello." });
  chat.type("hi\r");
  await chat.shows(/Hello\./);
  chat.type("/ship\t");
  await chat.bottom(/^\/ship-it$/);
  chat.type("\x03\x04");
  assert.equal(await chat.closed, 0);
});

test("a chat on a shared server completes an @path from the session's workspace there, not from its own directory", async (t) => {
  const notes = join(server.dataDir, "workspaces", "completer", "mentions", "notes");
  mkdirSync(notes, { recursive: true });
  writeFileSync(join(notes, "only-here.md"), "Only in the session's workspace.");
  const env = { ...process.env, NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "completer", TERM: "xterm", HARNESS_BUNDLE: "0" };
  const chat = inTerminal(t, `exec bash ${JSON.stringify(bin)} chat --session mentions`, { cwd: root, env, columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("see @notes/on\t");
  await chat.bottom(/^see @notes\/only-here\.md\s*$/);
  chat.type("\x03");
  // The chat's own directory (the repository) holds packages/; the session's workspace does not.
  chat.type("see @packa");
  await chat.bottom(/^see @packa$/);
  chat.type("\t");
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.match(chat.rows().join("\n"), /^see @packa$/m);
  chat.type("\x03\x04");
  assert.equal(await chat.closed, 0);
});

test("a chat on a shared server completes an @path as a chat of its own would in the same tree, the fuzzy match too", async (t) => {
  const workspace = join(server.dataDir, "workspaces", "completer", "alike");
  const tree = ["src/chat.ts", "src/chat-line.ts", "docs/guide.md", ".env", ".github/workflows/ci.yml", "node_modules/x/index.js",
    "my notes/todo list.md", "äpfel.md", "done!", "v1.)/notes.md", "many/file-a.ts", "many/file-b.ts"];
  for (const file of tree) {
    mkdirSync(join(workspace, file, ".."), { recursive: true });
    writeFileSync(join(workspace, file), "x");
  }
  symlinkSync("src", join(workspace, "src-link"));
  const sessions = createSessionsApi({ url: server.url, userId: "completer" });
  await sessions.create({ sessionId: "alike" });
  const list = (prefix: string, signal?: AbortSignal) => sessions.listFiles("alike", prefix, { signal });
  const typed = ["", "s", "src", "src/", "src/ch", "srcchat", "SRCLINE", "guide", ".", ".e", ".gith", "ci", "node_modules", "node_modules/x/i",
    "my", "my\\ notes/to", "pfel", "./äp", "done", "v1", "manyfile", "zzz", "missing/x", "sr/chat"];
  for (const word of typed) {
    const own = await completePath(word, workspace, "/nonexistent-home");
    assert.deepEqual(await completeListedPath(word, list), own, `@${word}`);
    t.diagnostic(`@${word} → ${own.join(" ")}`);
  }
  assert.deepEqual(await completeListedPath("srcchat", list), ["src/chat.ts", "src/chat-line.ts"]);
});

test("a chat on a shared server completes @srcchat to src/chat.ts in the session's workspace there", async (t) => {
  const src = join(server.dataDir, "workspaces", "completer", "fuzzy", "src");
  mkdirSync(src, { recursive: true });
  writeFileSync(join(src, "chat.ts"), "export {};");
  writeFileSync(join(src, "other.ts"), "export {};");
  const env = { ...process.env, NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "completer", TERM: "xterm", HARNESS_BUNDLE: "0" };
  const chat = inTerminal(t, `exec bash ${JSON.stringify(bin)} chat --session fuzzy`, { cwd: root, env, columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("see @srcchat\t");
  await chat.bottom(/^see @src\/chat\.ts\s*$/);
  chat.type("\x03\x04");
  assert.equal(await chat.closed, 0);
});
