// Tab in `harness chat` at a real terminal, against a local chat and the fake Anthropic server:
// a command after "/", a path of the project after "@", and a completed path sent in a prompt
// reaches the model with the file's content, as the chat's @-references do.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic, startHarnessServer, type FakeAnthropic } from "@harness/test-utils";
import { chatInTerminal, leaveChat, pause } from "../../test-support.ts";

let fake: FakeAnthropic;
let home: string;
let project: string;

before(async () => {
  fake = await startFakeAnthropic();
  home = mkdtempSync(join(tmpdir(), "harness-complete-home-"));
  project = mkdtempSync(join(tmpdir(), "harness-complete-project-"));
  mkdirSync(join(project, "packages", "cli"), { recursive: true });
  writeFileSync(join(project, "packages", "release notes.md"), "the release ships on Tuesday\n");
  mkdirSync(join(project, ".claude", "commands"), { recursive: true });
  writeFileSync(join(project, ".claude", "commands", "deploy-staging.md"), "Deploy to staging.");
  writeFileSync(join(project, ".claude", "commands", "ship-it.md"), "---\nargument-hint: [env] [--dry-run]\n---\nShip to $1.");
});
after(async () => {
  await fake.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
});

function localChat(t: { after(fn: () => unknown): void }, flags = "", color = false) {
  const env = { NO_COLOR: color ? "" : "1", HOME: home, CLAUDE_CONFIG_DIR: "", ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  return chatInTerminal(t, `--local ${flags}`, { cwd: project, env, columns: 80 });
}

test("a command completed by Tab shows its argument-hint, dim after the name, until typing starts", async (t) => {
  const chat = localChat(t, "", true);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/ship\t");
  await chat.bottom(/^\/ship-it \[env\] \[--dry-run\]$/);
  assert.match(chat.screen(), /\x1b\[2m\[env\] \[--dry-run\]/);
  chat.type("p");
  await chat.bottom(/^\/ship-it p$/);
  // Back to the name alone, the hint shows again; a command with no hint shows none.
  chat.type("\x7f");
  await chat.bottom(/^\/ship-it \[env\] \[--dry-run\]$/);
  chat.type("\x03/depl\t");
  await chat.bottom(/^\/deploy-staging$/);
  chat.type("\x03\x04");
  assert.equal(await chat.closed, 0);
});

test("Tab completes the chat's and the project's commands after /, and lists them when it can add nothing", async (t) => {
  const chat = localChat(t);
  await chat.sees(/Ctrl\+D leaves/);
  // (The screen's rows are read without their trailing spaces: a character typed after shows the space.)
  chat.type("/hel\t");
  await chat.bottom(/^\/help$/);
  chat.type("X");
  await chat.bottom(/^\/help X$/);
  chat.type("\x03");
  chat.type("/depl\t");
  await chat.bottom(/^\/deploy-staging$/);
  chat.type("X");
  await chat.bottom(/^\/deploy-staging X$/);
  chat.type("\x03");
  chat.type("/co\t");
  await chat.shows(/\/commands\s+\/compact\s+\/context\s+\/cost/);
  await chat.bottom(/^\/co$/);
  chat.type("\x03");
  // Shift+Tab, which the line editor takes for a Tab too, changes the mode and completes nothing.
  chat.type("/hel");
  await chat.bottom(/^\/hel$/);
  chat.type("\x1b[Z");
  await chat.shows(/accept edits on/);
  await pause(200);
  assert.match(chat.rows().join("\n"), /^\/hel$/m);
  assert.doesNotMatch(chat.rows().join("\n"), /^\/help/m);
  chat.type("\x03\x04");
  assert.equal(await chat.closed, 0);
});

test("Tab completes a path of the project after @, and the path sent reaches the model with the file's content", async (t) => {
  const chat = localChat(t);
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("read @pack\t");
  await chat.bottom(/^read @packages\/$/);
  chat.type("rel\t");
  await chat.bottom(/^read @packages\/release\\ notes\.md$/);
  fake.push({ text: "It ships on Tuesday." });
  chat.type("and say when");
  await chat.bottom(/^read @packages\/release\\ notes\.md and say when$/);
  chat.type("\r");
  await chat.sees(/It ships on Tuesday\./);
  const sent = JSON.stringify(fake.requests.at(-1)!.body.messages);
  assert.match(sent, /read @packages\/release\\\\ notes\.md and say when/);
  assert.match(sent, /the release ships on Tuesday/);
  await leaveChat(chat);
});

test("Tab completes the commands of a plugin given with --plugin-dir, by the path typed from where the chat started", async (t) => {
  mkdirSync(join(project, "dev", "tools", "commands"), { recursive: true });
  writeFileSync(join(project, "dev", "tools", "commands", "greet.md"), "Say hi.");
  const chat = localChat(t, "--plugin-dir dev/tools");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/tools:gr\t");
  await chat.bottom(/^\/tools:greet$/);
  chat.type("\x03\x04");
  assert.equal(await chat.closed, 0);
});

test("a chat on a server's session shows the argument-hint of a command its runs have, once a run has said so", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "harness-complete-server-"));
  mkdirSync(join(dataDir, "home", ".claude", "commands"), { recursive: true });
  writeFileSync(join(dataDir, "home", ".claude", "commands", "review-pr.md"), "---\nargument-hint: <number>\n---\nReview PR $1.");
  const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url } });
  t.after(async () => {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const env = { NO_COLOR: "1", HOME: home, HARNESS_URL: server.url, HARNESS_USER: "me", HARNESS_BUNDLE: "0" };
  const chat = chatInTerminal(t, "--session hinted", { env, columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  fake.push({ text: "Hello." });
  chat.type("hi\r");
  await chat.sees(/Hello\./);
  chat.type("/review-\t");
  await chat.bottom(/^\/review-pr <number>$/);
  chat.type("7");
  await chat.bottom(/^\/review-pr 7$/);
  chat.type("\x03\x04");
  assert.equal(await chat.closed, 0);
});
