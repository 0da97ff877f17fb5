// `harness chat` in a real terminal: the chat process runs under `script`, which gives it a
// pseudo-terminal, and the test types into that terminal as a user does (keys, Enter, Ctrl+C,
// Ctrl+D), against a real server process and the fake Anthropic server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { toolThenText } from "@harness/test-utils";
import { chatInTerminal, chatServerForFile, leaveChat, pause, steerHeld, tempDir } from "../test-support.ts";

const server = chatServerForFile("harness-chat-pty-");

/** The width of the chats' terminals. */
const COLUMNS = 60;

/** A chat on `sessionId` in a terminal of its own, COLUMNS wide; `type` sends keys as a terminal would. */
function terminalChat(t: { after(fn: () => unknown): void }, sessionId: string, env: Record<string, string> = {}, stdoutTo?: string) {
  const args = `--session ${sessionId}${stdoutTo ? ` > ${JSON.stringify(stdoutTo)}` : ""}`;
  return chatInTerminal(t, args, { env: { NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "pty", ...env }, columns: COLUMNS });
}

test("a prompt longer than the terminal's line buffer (4,095 characters) reaches the model whole", async (t) => {
  server.fake.push({ text: "Read it all" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "long-line");
  await chat.sees(/Ctrl\+D leaves/);
  const prompt = `${"0123456789".repeat(1000)}END`;
  chat.type(`${prompt}\r`);
  const [request] = (await server.fake.waitForRequests(before + 1)).slice(before);
  const sent = JSON.stringify(request.body.messages.at(-1));
  assert.ok(sent.includes(prompt), `the model got ${sent.length} characters: ${sent.slice(-60)}`);
  await chat.sees(/Read it all/);
  await leaveChat(chat);
});

test("keys edit the line: left arrow, backspace and up for the last prompt", async (t) => {
  server.fake.push({ text: "First" }, { text: "Second" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "editing");
  await chat.sees(/Ctrl\+D leaves/);
  // "helo", left, "l", right: "hello"; then a typo taken back.
  chat.type("helo\x1b[Dl\x1b[C wordx\x7f\r");
  await chat.sees(/First/);
  chat.type("\x1b[A!\r");
  await chat.sees(/Second/);
  const prompts = (await server.fake.waitForRequests(before + 2)).slice(before).map((request) => JSON.stringify(request.body.messages.at(-1)));
  assert.match(prompts[0], /"hello word"/);
  assert.match(prompts[1], /"hello word!"/);
  await leaveChat(chat);
});

test("a block of lines pasted at once is one prompt, shown once", async (t) => {
  server.fake.push({ text: "Got the block" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "pasted");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("first line\rsecond line\rthird line\r");
  await chat.sees(/Got the block/);
  const [request] = (await server.fake.waitForRequests(before + 1)).slice(before);
  assert.match(JSON.stringify(request.body.messages.at(-1)), /first line\\nsecond line\\nthird line/);
  await leaveChat(chat);
  assert.equal(chat.screen().match(/second line/g)?.length, 1, chat.screen());
  assert.doesNotMatch(chat.screen(), /already in progress|✗/);
});

test("Ctrl+C cancels the run under way and the chat goes on; Ctrl+C twice with nothing running leaves", async (t) => {
  let release!: () => void;
  server.fake.push({ text: "Thinking", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "After" });
  t.after(() => release());
  const chat = terminalChat(t, "interrupt");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("think hard\r");
  await chat.sees(/Thinking/);
  chat.type("\x03");
  await chat.sees(/\(cancelled\)/);
  chat.type("again\r");
  await chat.sees(/After/);
  chat.type("\x03");
  await chat.sees(/Ctrl\+C again to leave, or Ctrl\+D/);
  chat.type("\x03");
  assert.equal(await chat.closed, 130);
});

test("a line typed while a reply streams is shown as a steer on a line of its own", async (t) => {
  let release!: () => void;
  server.fake.push({ text: ["word1 word2", " word3\n"], hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Cats noted." });
  t.after(() => release());
  const chat = terminalChat(t, "steered");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("count\r");
  await chat.sees(/word1 word2 word3/);
  chat.type("also mention cats\r");
  // Held below the reply until the model reads it (its line ends with \r\n, which the terminal
  // driver makes \r\r\n).
  await chat.sees(/↳ steer: also mention cats\r*\n/);
  // Released once the run holds the steer: one that reached it only as it ended would start the
  // next run, and show as its prompt.
  await steerHeld(server.url, "pty", "steered");
  release();
  await chat.sees(/Cats noted\./);
  await leaveChat(chat);
  assert.deepEqual(chat.rows().filter((row) => row.includes("cats")), ["↳ steer: also mention cats"], chat.rows().join("\n"));
});

/** Types `keys` one at a time, as fingers do. */
async function typeSlowly(chat: { type(keys: string): unknown }, keys: string): Promise<void> {
  for (const key of keys) {
    chat.type(key);
    await pause(15);
  }
}

const WORDS = ["Streaming", " replies", " keep", " every", " word", " where", " the", " model", " put", " it,", " even", " while", " someone", " types", " below", " them", " at", " the", " same", " time."];

test("a line typed while a reply streams stays out of the reply, which reads whole, and shows once as a steer", async (t) => {
  let release!: () => void;
  server.fake.push({ text: WORDS, delayMs: 60, hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Cats noted." });
  t.after(() => release());
  const chat = terminalChat(t, "steer-echo");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("go\r");
  // Typed while the reply's unfinished line wraps over two rows of the terminal.
  await chat.sees(/ someone/);
  await typeSlowly(chat, "mention cats\r");
  await chat.sees(/time\./);
  await chat.sees(/↳ steer: mention cats/);
  const reply = WORDS.join("");
  const replyRows = (rows: string[]) => rows.findIndex((row) => reply.startsWith(row) && row.length > 20);
  // The reply's line is not over: the steer shows below it meanwhile, and below the steer the row
  // that says the run goes on.
  const rows = chat.rows();
  const at = replyRows(rows);
  assert.ok(at !== -1, rows.join("\n"));
  assert.deepEqual(rows.slice(at, -1), [reply.slice(0, COLUMNS), reply.slice(COLUMNS), "↳ steer: mention cats"], rows.join("\n"));
  assert.match(rows.at(-1)!, /^[·✢✳✶✻✽] \w+… \(\d+s(?: · ↓ \d+ tokens)? · esc to interrupt\)$/, rows.join("\n"));
  await steerHeld(server.url, "pty", "steer-echo");
  release();
  await chat.sees(/Cats noted\./);
  await leaveChat(chat);
  const after = chat.rows();
  assert.equal(after.slice(replyRows(after), replyRows(after) + 2).join(""), reply, after.join("\n"));
  assert.deepEqual(after.filter((row) => row.includes("cats")), ["↳ steer: mention cats"], after.join("\n"));
});

test("the line being typed stays below the streamed reply, and its edits reach the prompt", async (t) => {
  server.fake.push({ text: [...WORDS, "\n"], delayMs: 60 }, { text: "Done." });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "typing-below");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("go\r");
  await chat.sees(/ every/);
  await typeSlowly(chat, "next qestion");
  await chat.bottom(/^next qestion$/);
  await chat.sees(/time\./);
  // Left six times, to just after the "q", and the missing "u".
  chat.type("\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D\x1b[Du");
  await chat.bottom(/^next question$/);
  // The run is over: its working row is gone from between the reply and the typed line.
  await chat.gone(/esc to interrupt/);
  const rows = chat.rows();
  assert.equal(rows.slice(-3, -1).join(""), WORDS.join(""), rows.join("\n"));
  chat.type("\r");
  await chat.sees(/Done\./);
  const [request] = (await server.fake.waitForRequests(before + 2)).slice(before + 1);
  assert.match(JSON.stringify(request.body.messages.at(-1)), /next question/);
  await leaveChat(chat);
  assert.equal(chat.rows().filter((row) => row.includes("question")).length, 1, chat.rows().join("\n"));
});

test("a terminal that cannot move the cursor (TERM=dumb) still shows a steer on a line of its own", async (t) => {
  let release!: () => void;
  server.fake.push({ text: ["word1 word2", " word3\n"], hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Dogs noted." });
  t.after(() => release());
  const chat = terminalChat(t, "steered-dumb", { TERM: "dumb" });
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("count\r");
  await chat.sees(/word1 word2 word3/);
  chat.type("also mention dogs\r");
  await chat.sees(/\n↳ steer: also mention dogs\r?\n/);
  release();
  await chat.sees(/Dogs noted\./);
  await leaveChat(chat);
  assert.doesNotMatch(chat.screen(), /\x1b\[(\d*A|J)/);
});

test("with the replies sent to a file, the file holds the replies alone and the terminal the line being typed", async (t) => {
  server.fake.push({ text: [...WORDS, "\n"], delayMs: 60 }, { text: "Done." });
  const out = join(tempDir(t), "out.txt");
  // Colours on: the chat's own lines are painted, and none of that may reach the file.
  const chat = terminalChat(t, "to-file", { NO_COLOR: "" }, out);
  const file = () => readFileSync(out, "utf8");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("go\r");
  for (let waited = 0; !file().includes(" every"); waited += 20) {
    if (waited > 20_000) throw new Error(`the file never got the reply; it holds ${JSON.stringify(file())}`);
    await pause(20);
  }
  await typeSlowly(chat, "next qestion");
  chat.type("\x1b[D\x1b[D\x1b[D\x1b[D\x1b[D\x1b[Du");
  await chat.bottom(/^next question$/);
  chat.type("\r");
  await chat.sees(/next question/);
  for (let waited = 0; !file().endsWith("Done.\n"); waited += 20) {
    if (waited > 20_000) throw new Error(`the file never got the second reply; it holds ${JSON.stringify(file())}`);
    await pause(20);
  }
  await leaveChat(chat);
  assert.equal(file(), `${WORDS.join("")}\nDone.\n`);
  const rows = chat.rows();
  assert.equal(rows.filter((row) => row.includes("question")).length, 1, rows.join("\n"));
  assert.ok(rows.includes("go"), rows.join("\n"));
});

test("at an approval, the answer and a line refused stay on the screen as typed", async (t) => {
  server.fake.push(...toolThenText("Bash", { command: "touch pty-approved.txt" }, "Ran it."));
  const chat = terminalChat(t, "approval");
  await chat.sees(/Ctrl\+D leaves/);
  chat.type("run it\r");
  await chat.sees(/needs approval/);
  chat.type("what does it do?\r");
  await chat.sees(/then type your message/);
  chat.type("y\r");
  await chat.sees(/Ran it\./);
  await leaveChat(chat);
  const rows = chat.rows();
  const refused = rows.indexOf("what does it do?");
  assert.ok(refused !== -1 && rows[refused + 1].startsWith("✗ a call waits for approval"), rows.join("\n"));
  assert.ok(rows.includes("y"), rows.join("\n"));
});
