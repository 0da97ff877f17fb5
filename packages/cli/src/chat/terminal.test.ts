// `harness chat` at a terminal: the chat runs in this process on a standard input that says it is a
// terminal, against a real server process and the fake Anthropic server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { waitFor } from "@harness/test-utils";
import { chatCommand } from "./chat.ts";
import { chatServerForFile, slowLink } from "../test-support.ts";

const server = chatServerForFile("harness-chat-tty-");

/** A chat on session `sessionId` whose standard input is a terminal the test types into. */
function terminalChat(t: { after(fn: () => unknown): void }, sessionId: string, url = server.url) {
  const stdin = Object.assign(new PassThrough({ encoding: "utf8" }), { isTTY: true });
  const out = { stdout: "", stderr: "" };
  const sink = (key: keyof typeof out) => ({ write: (text: string) => ((out[key] += text), true) });
  const status = chatCommand(
    { kind: "chat", url, userId: "tty", sessionId },
    { stdout: sink("stdout"), stderr: sink("stderr"), env: { NO_COLOR: "1" }, stdin },
  );
  // A failed test does not leave the chat waiting for more input.
  t.after(() => stdin.end());
  return { stdin, out, status };
}

test("lines pasted at once are one prompt, not a prompt and lines refused while it runs", async (t) => {
  server.fake.push({ text: "Got all three" });
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "pasted");
  // A terminal in line mode hands a pasted block over line by line, all at once.
  for (const line of ["first line", "second line", "third line"]) chat.stdin.write(`${line}\n`);
  const [request] = (await server.fake.waitForRequests(before + 1)).slice(before);
  const sent = JSON.stringify(request.body.messages.at(-1));
  assert.match(sent, /first line\\nsecond line\\nthird line/);
  await waitFor(() => chat.out.stdout.includes("Got all three"), "the reply");
  chat.stdin.end();
  assert.equal(await chat.status, 0);
  assert.doesNotMatch(chat.out.stderr, /already in progress/);
  assert.equal(chat.out.stdout, "Got all three\n");
});

test("Ctrl+C right after a prompt, before its run shows, cancels that run instead of leaving it going", async (t) => {
  let release!: () => void;
  server.fake.push({ text: "Thinking", hold: new Promise<void>((resolve) => (release = resolve)) });
  t.after(() => release());
  const before = server.fake.requests.length;
  const chat = terminalChat(t, "quick-interrupt", await slowLink(t, server.url, 400));
  // The chat says how to leave once it is on the session and watches for Ctrl+C.
  await waitFor(() => /Ctrl\+D leaves/.test(chat.out.stderr), "the chat on its session");
  chat.stdin.write("think hard\n");
  // The prompt is sent and its run started; what the server says of it is still on its way.
  await server.fake.waitForRequests(before + 1);
  process.emit("SIGINT");
  const left = await Promise.race([chat.status, new Promise((resolve) => setTimeout(resolve, 3000, "still here"))]);
  assert.equal(left, "still here", chat.out.stderr);
  assert.match(chat.out.stderr, /cancelling the run/);
  assert.match(chat.out.stderr, /\(cancelled\)\n/);
  chat.stdin.end();
  assert.equal(await chat.status, 0);
});
