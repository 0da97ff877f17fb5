// `harness chat` in a real terminal: the chat process runs under `script`, which gives it a
// pseudo-terminal, and the test types into that terminal as a user does (keys, Enter, Ctrl-C,
// Ctrl-D), against a real server process and the fake Anthropic server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import type { FakeAnthropic, HarnessProcess } from "@harness/test-utils";
import { bin, root, startChatServer } from "./test-support.ts";

let fake: FakeAnthropic;
let server: HarnessProcess;
let stop: () => Promise<void>;

before(async () => {
  ({ fake, server, stop } = await startChatServer("harness-chat-pty-"));
});
after(() => stop());

/** A chat on `sessionId` in a terminal of its own; `type` sends keys as a terminal would. */
function terminalChat(t: { after(fn: () => unknown): void }, sessionId: string) {
  const line = `exec bash ${JSON.stringify(bin)} chat --session ${sessionId}`;
  const child = spawn("script", ["-qfec", line, "/dev/null"], {
    cwd: root,
    env: { ...process.env, NO_COLOR: "1", HARNESS_URL: server.url, HARNESS_USER: "pty", TERM: "xterm" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let screen = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (screen += d));
  const stuck = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const closed = once(child, "close").then(([code]) => (clearTimeout(stuck), code as number | null));
  t.after(() => child.kill("SIGKILL"));
  return {
    type: (keys: string) => child.stdin.write(keys),
    screen: () => screen,
    closed,
    /** Resolves once the terminal shows `pattern`. */
    async sees(pattern: RegExp): Promise<void> {
      for (let waited = 0; !pattern.test(screen); waited += 20) {
        if (waited > 20_000) throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

test("a prompt longer than the terminal's line buffer (4,095 characters) reaches the model whole", async (t) => {
  fake.push({ text: "Read it all" });
  const before = fake.requests.length;
  const chat = terminalChat(t, "long-line");
  await chat.sees(/Ctrl-D leaves/);
  const prompt = `${"0123456789".repeat(1000)}END`;
  chat.type(`${prompt}\r`);
  const [request] = (await fake.waitForRequests(before + 1)).slice(before);
  const sent = JSON.stringify(request.body.messages.at(-1));
  assert.ok(sent.includes(prompt), `the model got ${sent.length} characters: ${sent.slice(-60)}`);
  await chat.sees(/Read it all/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("keys edit the line: left arrow, backspace and up for the last prompt", async (t) => {
  fake.push({ text: "First" }, { text: "Second" });
  const before = fake.requests.length;
  const chat = terminalChat(t, "editing");
  await chat.sees(/Ctrl-D leaves/);
  // "helo", left, "l", right: "hello"; then a typo taken back.
  chat.type("helo\x1b[Dl\x1b[C wordx\x7f\r");
  await chat.sees(/First/);
  chat.type("\x1b[A!\r");
  await chat.sees(/Second/);
  const prompts = (await fake.waitForRequests(before + 2)).slice(before).map((request) => JSON.stringify(request.body.messages.at(-1)));
  assert.match(prompts[0], /"hello word"/);
  assert.match(prompts[1], /"hello word!"/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});

test("a block of lines pasted at once is one prompt, shown once", async (t) => {
  fake.push({ text: "Got the block" });
  const before = fake.requests.length;
  const chat = terminalChat(t, "pasted");
  await chat.sees(/Ctrl-D leaves/);
  chat.type("first line\rsecond line\rthird line\r");
  await chat.sees(/Got the block/);
  const [request] = (await fake.waitForRequests(before + 1)).slice(before);
  assert.match(JSON.stringify(request.body.messages.at(-1)), /first line\\nsecond line\\nthird line/);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
  assert.equal(chat.screen().match(/second line/g)?.length, 1, chat.screen());
  assert.doesNotMatch(chat.screen(), /already in progress|✗/);
});

test("Ctrl-C cancels the run under way and the chat goes on; Ctrl-C with nothing running leaves", async (t) => {
  let release!: () => void;
  fake.push({ text: "Thinking", hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "After" });
  t.after(() => release());
  const chat = terminalChat(t, "interrupt");
  await chat.sees(/Ctrl-D leaves/);
  chat.type("think hard\r");
  await chat.sees(/Thinking/);
  chat.type("\x03");
  await chat.sees(/\(cancelled\)/);
  chat.type("again\r");
  await chat.sees(/After/);
  chat.type("\x03");
  assert.equal(await chat.closed, 130);
});

test("a line typed while a reply streams is shown as a steer on a line of its own", async (t) => {
  let release!: () => void;
  fake.push({ text: ["word1 word2", " word3\n"], hold: new Promise<void>((resolve) => (release = resolve)) }, { text: "Cats noted." });
  t.after(() => release());
  const chat = terminalChat(t, "steered");
  await chat.sees(/Ctrl-D leaves/);
  chat.type("count\r");
  await chat.sees(/word1 word2 word3/);
  chat.type("also mention cats\r");
  await chat.sees(/\n↳ steer: also mention cats\r?\n/);
  release();
  await chat.sees(/Cats noted\./);
  chat.type("\x04");
  assert.equal(await chat.closed, 0);
});
