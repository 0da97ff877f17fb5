// Bracketed paste in `harness chat` at a real terminal (under `script`), against a real server and
// the fake Anthropic server, which records what the model was sent: a long paste shows as Claude
// Code's placeholder and is sent as its text, a paste into the middle of a typed line is sent in
// order, Backspace takes a placeholder off whole, a cleared line forgets its paste, a Ctrl+R pasted is
// text, a prompt recalled with its paste steers with the text, and the terminal leaves the mode as
// the chat ends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { chatInTerminal, chatServerForFile, leaveChat, pause, steerHeld, tempDir } from "../../test-support.ts";

const server = chatServerForFile("harness-chat-bracketed-");

const START = "\x1b[200~";
const END = "\x1b[201~";
const lines = (count: number) => Array.from({ length: count }, (_, i) => `pasted line ${i + 1}`);

let sessions = 0;
async function chatIn(t: { after(fn: () => unknown): void }, config: string) {
  const env = { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "paste", CLAUDE_CONFIG_DIR: config, HARNESS_BUNDLE: "0" };
  const sessionId = `bracketed-${process.pid}-${++sessions}`;
  const chat = chatInTerminal(t, `--session ${sessionId}`, { cwd: tempDir(t), env, columns: 80 });
  await chat.sees(/Ctrl\+D leaves/);
  return Object.assign(chat, { sessionId });
}

/** The text of the last message of the request after the first `before`. */
async function sent(before: number): Promise<string> {
  const [request] = (await server.fake.waitForRequests(before + 1)).slice(before);
  const message = request.body.messages.at(-1) as { content: string | { type: string; text?: string }[] };
  return typeof message.content === "string" ? message.content : message.content.map((part) => part.text ?? "").join("");
}

test("a 12-line paste shows as a placeholder, is sent as its text, and the history keeps both; the terminal leaves bracketed paste as the chat ends", async (t) => {
  const config = tempDir(t);
  server.fake.push({ text: "Read them" });
  const before = server.fake.requests.length;
  const chat = await chatIn(t, config);
  assert.match(chat.screen(), /\x1b\[\?2004h/);
  chat.type(`look at ${START}${lines(12).join("\r")}${END}`);
  await chat.bottom(/^look at \[Pasted text #1 \+11 lines\]$/);
  assert.doesNotMatch(chat.screen(), /pasted line 2/);
  chat.type(" please\r");
  await chat.sees(/Read them/);
  assert.equal(await sent(before), `look at ${lines(12).join("\n")} please`);
  await leaveChat(chat);
  assert.match(chat.screen(), /\x1b\[\?2004l/);
  const [kept] = readFileSync(join(config, "history.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(kept.display, "look at [Pasted text #1 +11 lines] please");
  assert.deepEqual(kept.pastedContents, { 1: { id: 1, type: "text", content: lines(12).join("\n") } });
});

test("lines pasted into the middle of a typed line are sent with it, in order, as one prompt", async (t) => {
  server.fake.push({ text: "In order" });
  const before = server.fake.requests.length;
  const chat = await chatIn(t, tempDir(t));
  chat.type("head tail");
  chat.type("\x1b[D".repeat(4));
  await pause(100);
  chat.type(`${START}one\rtwo\r${END}`);
  await pause(200);
  assert.equal(server.fake.requests.length, before, "the paste's line breaks sent nothing");
  chat.type("\r");
  await chat.sees(/In order/);
  assert.equal(await sent(before), "head one\ntwo\ntail");
  await leaveChat(chat);
});

test("Backspace just after a placeholder takes the paste off whole, and it is not sent", async (t) => {
  server.fake.push({ text: "Without it" });
  const before = server.fake.requests.length;
  const chat = await chatIn(t, tempDir(t));
  chat.type(`keep ${START}${lines(5).join("\r")}${END}`);
  await chat.bottom(/^keep \[Pasted text #1 \+4 lines\]$/);
  chat.type("\x7f");
  await chat.bottom(/^keep ?$/);
  chat.type("this\r");
  await chat.sees(/Without it/);
  assert.equal(await sent(before), "keep this");
  await leaveChat(chat);
});

test("a paste holding escape sequences acts on neither the terminal nor the chat's keys, and is sent without them", async (t) => {
  server.fake.push({ text: "Plain" });
  const before = server.fake.requests.length;
  const chat = await chatIn(t, tempDir(t));
  // Colours, then Shift+Tab (the permission modes' key).
  chat.type(`say ${START}\x1b[31mred\x1b[0m\x1b[Z${END}`);
  await chat.bottom(/^say \[31mred\[0m\[Z$/);
  assert.doesNotMatch(chat.screen(), /\x1b\[31m/);
  chat.type(" now\r");
  await chat.sees(/Plain/);
  assert.equal(await sent(before), "say [31mred[0m[Z now");
  assert.doesNotMatch(chat.screen(), /accept edits/);
  await leaveChat(chat);
});

test("a paste whose end is lost holds the typed line only until Ctrl+C, which clears it and leaves the chat its keys", async (t) => {
  server.fake.push({ text: "Free" });
  const before = server.fake.requests.length;
  const chat = await chatIn(t, tempDir(t));
  // Node's key reader takes ESC ESC and the paste's end for one key: the end is lost.
  chat.type(`lost ${START}text\x1b\x1b${END}`);
  await pause(200);
  chat.type("more");
  await pause(600);
  chat.type("\x03");
  await pause(200);
  chat.type("next\r");
  await chat.sees(/Free/);
  assert.equal(await sent(before), "next");
  await leaveChat(chat);
});

test("a long paste ending in \\ at the end of the line is sent at Enter: only a \\ typed makes the line go on", async (t) => {
  server.fake.push({ text: "Sent" });
  const before = server.fake.requests.length;
  const chat = await chatIn(t, tempDir(t));
  chat.type(`run ${START}ls \\\r  -l \\\r  -a \\\r  -h \\${END}`);
  await chat.bottom(/^run \[Pasted text #1 \+3 lines\]$/);
  chat.type("\r");
  await chat.sees(/Sent/);
  assert.equal(await sent(before), "run ls \\\n  -l \\\n  -a \\\n  -h \\");
  await leaveChat(chat);
});

test("after Ctrl+C clears a line holding a paste, the paste is forgotten: its placeholder typed is sent as typed", async (t) => {
  server.fake.push({ text: "Literal" });
  const before = server.fake.requests.length;
  const chat = await chatIn(t, tempDir(t));
  chat.type(`${START}${lines(5).join("\r")}${END}`);
  await chat.bottom(/^\[Pasted text #1 \+4 lines\]$/);
  chat.type("\x03");
  await pause(200);
  chat.type("[Pasted text #1 +4 lines]\r");
  await chat.sees(/Literal/);
  assert.equal(await sent(before), "[Pasted text #1 +4 lines]");
  await leaveChat(chat);
});

test("a Ctrl+R inside a paste is pasted text, dropped: no search starts, and the paste is sent whole", async (t) => {
  server.fake.push({ text: "No search" });
  const before = server.fake.requests.length;
  const chat = await chatIn(t, tempDir(t));
  chat.type(`${START}find\x12me${END}`);
  await chat.bottom(/^findme$/);
  assert.doesNotMatch(chat.screen(), /reverse-i-search/);
  chat.type("\r");
  await chat.sees(/No search/);
  assert.equal(await sent(before), "findme");
  await leaveChat(chat);
});

test("a prompt with a paste recalled while a run is under way steers it with the text pasted", async (t) => {
  let release!: () => void;
  server.fake.push({ text: "First" }, { text: "Busy", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Steered" });
  t.after(() => release());
  const before = server.fake.requests.length;
  const chat = await chatIn(t, tempDir(t));
  chat.type(`look ${START}${lines(4).join("\r")}${END}\r`);
  await chat.sees(/First/);
  chat.type("wait\r");
  await server.fake.waitForRequests(before + 2);
  chat.type("\x1b[A\x1b[A");
  await chat.bottom(/^look \[Pasted text #1 \+3 lines\]$/);
  chat.type("\r");
  await steerHeld(server.url, "paste", chat.sessionId);
  release();
  await chat.sees(/Steered/);
  const all = JSON.stringify(server.fake.requests.slice(before + 2).map((r) => r.body.messages));
  assert.ok(all.includes(JSON.stringify(`look ${lines(4).join("\n")}`).slice(1, -1)), "the steer carries the text");
  await leaveChat(chat);
});
