// The keys of `harness chat` at a terminal that a Claude Code user types without thinking: Esc
// stops the reply, `\` or Alt+Enter before Enter goes on to a new line of the same prompt, Ctrl+C
// with nothing running clears the line, and leaves only when pressed twice on an empty one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chatInTerminal, chatServerForFile, leaveChat, pause } from "../../test-support.ts";

const server = chatServerForFile("harness-chat-keys-");

function terminalChat(t: { after(fn: () => unknown): void }, sessionId: string) {
  return chatInTerminal(t, `--session ${sessionId}`, { env: { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "keys" }, columns: 60 });
}

/** The last user message of each request from the `before`th on, as JSON. */
async function prompts(before: number, count: number): Promise<string[]> {
  return (await server.fake.waitForRequests(before + count)).slice(before).map((request) => JSON.stringify(request.body.messages.at(-1)));
}

test("Esc stops a reply while it streams, and the chat goes on", async (t) => {
  const words = Array.from({ length: 60 }, (_, i) => `w${i} `);
  server.fake.push({ text: [...words, "LAST"], delayMs: 100 }, { text: "After" });
  const chat = terminalChat(t, "esc-cancels");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("go on\r");
  await chat.sees(/w3 /);
  chat.type("\x1b");
  await chat.sees(/\(cancelled\)/);
  assert.doesNotMatch(chat.screen(), /LAST/);
  // Esc does not leave, whatever is pressed after it: the note says nothing of leaving.
  assert.match(chat.screen(), /cancelling the run/);
  assert.doesNotMatch(chat.screen(), /again to leave/);
  chat.type("again\r");
  await chat.sees(/After/);
  await leaveChat(chat);
});

test("Esc with nothing running leaves the line being typed as it was", async (t) => {
  server.fake.push({ text: "Fine" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "esc-idle");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("abc");
  await pause(100);
  chat.type("\x1b");
  // A lone Esc is told from the start of a key's sequence after half a second.
  await pause(800);
  chat.type("d\r");
  await chat.sees(/Fine/);
  assert.match((await prompts(before, 1))[0], /"abcd"/);
  await leaveChat(chat);
});

test("Esc twice with nothing running lists the prompts to rewind to", async (t) => {
  server.fake.push({ text: "One" });
  const chat = terminalChat(t, "esc-rewind");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("first prompt\r");
  await chat.sees(/One/);
  chat.type("\x1b\x1b");
  await chat.sees(/\/rewind N puts the conversation/);
  await leaveChat(chat);
});

test("a line ending in \\ goes on to the next one: the prompt arrives whole, with its newline", async (t) => {
  server.fake.push({ text: "Two lines read" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "backslash");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("first line \\\r");
  await pause(300);
  assert.equal(server.fake.requests.length, before, "a continued line is not sent on its own");
  chat.type("second line\r");
  await chat.sees(/Two lines read/);
  const [prompt] = await prompts(before, 1);
  assert.match(prompt, /"first line \\nsecond line"/);
  await leaveChat(chat);
  assert.equal(chat.rows().filter((row) => row.includes("second line")).length, 1, chat.rows().join("\n"));
});

test("Alt+Enter (ESC then Enter) starts a new line of the same prompt", async (t) => {
  server.fake.push({ text: "Both read" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "alt-enter");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("one");
  await pause(100);
  chat.type("\x1b\r");
  await pause(300);
  chat.type("two\r");
  await chat.sees(/Both read/);
  assert.match((await prompts(before, 1))[0], /"one\\ntwo"/);
  await leaveChat(chat);
});

test("Ctrl+C with nothing running clears the line typed; on an empty line, twice leaves", async (t) => {
  server.fake.push({ text: "Cleared" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "ctrl-c-idle");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("a draft \\\r");
  await pause(200);
  chat.type("more draft");
  await pause(100);
  chat.type("\x03");
  await pause(200);
  chat.type("the real one\r");
  await chat.sees(/Cleared/);
  assert.match((await prompts(before, 1))[0], /"the real one"/);
  chat.type("\x03");
  await chat.sees(/Ctrl\+C again to leave/);
  chat.type("\x03");
  assert.equal(await chat.closed, 130);
});
