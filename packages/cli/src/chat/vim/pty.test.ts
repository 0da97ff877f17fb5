// Vim mode in the chat's prompt at a real terminal, as Claude Code's /vim has it: /vim turns it on,
// Esc goes to normal mode (shown below the prompt as -- NORMAL --), vim's keys edit the prompt, and
// Enter sends it whatever the mode.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chatInTerminal, chatServerForFile, leaveChat, pause } from "../../test-support.ts";

const server = chatServerForFile("harness-chat-vim-");

/** The last user message of each request from the `before`th on, as JSON. */
async function prompts(before: number, count: number): Promise<string[]> {
  return (await server.fake.waitForRequests(before + count)).slice(before).map((request) => JSON.stringify(request.body.messages.at(-1)));
}

function terminalChat(t: { after(fn: () => unknown): void }, sessionId: string) {
  return chatInTerminal(t, `--session ${sessionId}`, { env: { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "vim" }, columns: 60 });
}

test("/vim, text, Esc, 0dw, A and more text, Enter: the model gets the prompt as edited", async (t) => {
  server.fake.push({ text: "Done" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "vim-edits");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/vim\r");
  await chat.sees(/vim mode on/);
  await chat.sees(/-- INSERT --/);
  chat.type("please fix the bug");
  await chat.sees(/please fix the bug/);
  chat.type("\x1b");
  await chat.sees(/-- NORMAL --/);
  chat.type("0dw");
  await pause(200);
  chat.type("A now\r");
  await chat.sees(/Done/);
  const [request] = (await server.fake.waitForRequests(before + 1)).slice(before);
  assert.equal(JSON.stringify(request.body.messages.at(-1)).includes("fix the bug now"), true, JSON.stringify(request.body.messages.at(-1)));
  assert.doesNotMatch(JSON.stringify(request.body.messages.at(-1)), /please/);
  chat.type("/vim\r");
  await chat.sees(/vim mode off/);
  await leaveChat(chat);
});

test("Esc in insert mode goes to normal mode and cancels no run; in normal mode it cancels the run", async (t) => {
  const words = Array.from({ length: 60 }, (_, i) => `w${i} `);
  server.fake.push({ text: [...words, "LAST"], delayMs: 100 });
  const chat = terminalChat(t, "vim-esc");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/vim\r");
  await chat.sees(/-- INSERT --/);
  chat.type("go on\r");
  await chat.sees(/w3 /);
  chat.type("\x1b");
  await chat.sees(/-- NORMAL --/);
  await chat.sees(/w8 /);
  assert.doesNotMatch(chat.screen(), /cancelled/);
  // Esc after a command half typed takes the command back, and cancels nothing either.
  await pause(900);
  chat.type("d");
  await pause(100);
  chat.type("\x1b");
  await pause(900);
  assert.doesNotMatch(chat.screen(), /cancelled/);
  chat.type("\x1b");
  await chat.sees(/\(cancelled\)/);
  assert.doesNotMatch(chat.screen(), /LAST/);
  await leaveChat(chat);
});

test("a chat starts in vim mode when Claude Code's ~/.claude.json says editorMode vim", async (t) => {
  const home = mkdtempSync(join(tmpdir(), "harness-vim-home-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  writeFileSync(join(home, ".claude.json"), JSON.stringify({ editorMode: "vim", numStartups: 3 }));
  server.fake.push({ text: "Sure" });
  const before = server.fake.requests.length;
  const chat = chatInTerminal(t, "--session vim-config", { env: { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "vim", HOME: home }, columns: 60 });
  await chat.sees(/-- INSERT --/);
  chat.type("one two");
  await chat.sees(/one two/);
  chat.type("\x1b");
  await chat.sees(/-- NORMAL --/);
  chat.type("bD\r");
  await chat.sees(/Sure/);
  const [request] = (await server.fake.waitForRequests(before + 1)).slice(before);
  assert.match(JSON.stringify(request.body.messages.at(-1)), /"text":"one"/);
  assert.equal(readFileSync(join(home, ".claude.json"), "utf8"), JSON.stringify({ editorMode: "vim", numStartups: 3 }), "Claude Code's file is left as it was");
  await leaveChat(chat);
});

test("keys typed straight after Esc are normal mode's, and insert mode keeps the editor's keys", async (t) => {
  server.fake.push({ text: "First" }, { text: "Second" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "vim-fast");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/vim\r");
  await chat.sees(/-- INSERT --/);
  // Esc and b in one go, as a fast typist's terminal sends them (else Alt+B, a word back).
  chat.type("alpha beta\x1bbD");
  await chat.sees(/-- NORMAL --/);
  await pause(200);
  // Insert mode again (a): Ctrl+J puts a line break in the prompt; k goes up a line of it.
  chat.type("agamma\ndelta\x1bkx\r");
  await chat.sees(/First/);
  assert.match((await prompts(before, 1))[0], /"alph gamma\\ndelta"/);
  // k with no line above recalls the prompt sent, as Up does; the next starts in insert mode.
  chat.type("x");
  await pause(100);
  chat.type("\x1b");
  await chat.sees(/-- NORMAL --/);
  chat.type("k");
  await chat.sees(/alph gamma/);
  chat.type("$x\r");
  await chat.sees(/Second/);
  assert.match((await prompts(before + 1, 1))[0], /"alph gamma\\ndelt"/);
  await leaveChat(chat);
});

test("in vim mode a paste is text in either mode, Tab completes in insert mode, and Ctrl+R redoes in normal mode", async (t) => {
  server.fake.push({ text: "Pasted" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "vim-keep");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("/vim\r");
  await chat.sees(/-- INSERT --/);
  chat.type("/rena\t");
  await chat.shows(/^\/rename/m);
  chat.type("\x15");
  await pause(100);
  chat.type("start");
  await pause(100);
  chat.type("\x1b");
  await chat.sees(/-- NORMAL --/);
  // dd x (nothing left to take), u brings the line back, Ctrl+R takes it again, u once more.
  chat.type("ddu\x12u");
  await pause(100);
  // Backspace steps back (it deletes nothing), and $ goes to the line's end again.
  chat.type("\x7f\x7f");
  await pause(200);
  // Pasted in normal mode, at the cursor: the keys are text, not commands (dd would take the line).
  chat.type("$\x1b[200~ dd x\x1b[201~");
  await chat.shows(/star dd xt/);
  chat.type("\r");
  await chat.sees(/Pasted/);
  assert.match((await prompts(before, 1))[0], /"star dd xt"/);
  await leaveChat(chat);
});
