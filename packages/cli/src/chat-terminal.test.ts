// `harness chat` at a terminal: the chat runs in this process on a standard input that says it is a
// terminal, against a real server process and the fake Anthropic server.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { startFakeAnthropic, startHarnessServer, type FakeAnthropic, type HarnessProcess } from "@harness/test-utils";
import { chatCommand } from "./chat.ts";

let fake: FakeAnthropic;
let server: HarnessProcess;
let dataDir: string;

before(async () => {
  fake = await startFakeAnthropic();
  dataDir = mkdtempSync(join(tmpdir(), "harness-chat-tty-"));
  server = await startHarnessServer({
    dataDir,
    env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_MODEL_RETRIES: "0", HARNESS_RETRY_BASE_MS: "1" },
  });
});
after(async () => {
  await server.stop();
  await fake.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A chat on session `sessionId` whose standard input is a terminal the test types into. */
function terminalChat(t: { after(fn: () => unknown): void }, sessionId: string) {
  const stdin = Object.assign(new PassThrough({ encoding: "utf8" }), { isTTY: true });
  const out = { stdout: "", stderr: "" };
  const sink = (key: keyof typeof out) => ({ write: (text: string) => ((out[key] += text), true) });
  const status = chatCommand(
    { kind: "chat", url: server.url, userId: "tty", sessionId },
    { stdout: sink("stdout"), stderr: sink("stderr"), env: { NO_COLOR: "1" }, stdin },
  );
  // A failed test does not leave the chat waiting for more input.
  t.after(() => stdin.end());
  return { stdin, out, status };
}

test("lines pasted at once are one prompt, not a prompt and lines refused while it runs", async (t) => {
  fake.push({ text: "Got all three" });
  const before = fake.requests.length;
  const chat = terminalChat(t, "pasted");
  // A terminal in line mode hands a pasted block over line by line, all at once.
  for (const line of ["first line", "second line", "third line"]) chat.stdin.write(`${line}\n`);
  const [request] = (await fake.waitForRequests(before + 1)).slice(before);
  const sent = JSON.stringify(request.body.messages.at(-1));
  assert.match(sent, /first line\\nsecond line\\nthird line/);
  await new Promise((resolve) => setTimeout(resolve, 500));
  chat.stdin.end();
  assert.equal(await chat.status, 0);
  assert.doesNotMatch(chat.out.stderr, /already in progress/);
  assert.equal(chat.out.stdout, "Got all three\n");
});
