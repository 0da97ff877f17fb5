// `harness run --replay-user-messages`: with stream-json in and out, each user message read from
// standard input is echoed on stdout once its turn takes it, as claude -p does for the Agent SDK.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { parseArgs } from "../../args.ts";
import { harness, tempDir, withFake } from "../../test-support.ts";

const STREAM = ["--input-format", "stream-json", "--output-format", "stream-json"];
const linesOf = (stdout: string) => stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test("--replay-user-messages: each message read is echoed once its turn takes it, with isReplay, its uuid and the session's id", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "First answer." }, { text: "Second answer." }] }));
  const dir = tempDir(t);
  const first = { role: "user", content: "What is one?" };
  const second = { role: "user", content: [{ type: "text", text: "And two?" }] };
  const given = "0b6f3a52-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
  const stdin = `${JSON.stringify({ type: "user", message: first, parent_tool_use_id: null, session_id: "" })}\n${JSON.stringify({ type: "user", message: second, uuid: given })}\n`;
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM, "--replay-user-messages"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { stdin }).result;
  assert.equal(code, 0, stderr);
  const lines = linesOf(stdout);
  const replays = lines.filter((line) => line.type === "user" && line.isReplay === true);
  assert.equal(replays.length, 2, stdout);
  const results = lines.filter((line) => line.type === "result");
  for (const replay of replays) {
    assert.equal(replay.session_id, results[0]!.session_id);
    assert.equal(replay.parent_tool_use_id, null);
    assert.match(String(replay.uuid), UUID);
  }
  assert.deepEqual(replays[0]!.message, first);
  assert.deepEqual(replays[1]!.message, second);
  assert.equal(replays[1]!.uuid, given, "the message's own uuid is kept");
  // Each echo comes once its turn begins: after the result before it, before the reply to it.
  const index = (line: unknown) => lines.indexOf(line as (typeof lines)[number]);
  const reply = (text: string) => lines.findIndex((line) => line.type === "assistant" && JSON.stringify(line).includes(text));
  assert.ok(index(replays[0]) < reply("First answer."));
  assert.ok(index(results[0]) < index(replays[1]) && index(replays[1]) < reply("Second answer."), stdout);
});

test("without --replay-user-messages no message read is echoed", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Answer." }] }));
  const dir = tempDir(t);
  const stdin = `${JSON.stringify({ type: "user", message: { role: "user", content: "Hi" } })}\n`;
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-6", ...STREAM], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { stdin }).result;
  assert.equal(code, 0, stderr);
  assert.ok(!linesOf(stdout).some((line) => line.isReplay !== undefined), stdout);
});

test("--replay-user-messages is refused in one line unless input and output are both stream-json", async (t) => {
  const refusal = "--replay-user-messages requires both --input-format stream-json and --output-format stream-json";
  assert.deepEqual(parseArgs(["run", "--output-format", "stream-json", "--replay-user-messages", "hi"]), { kind: "usage-error", message: refusal, topic: "run" });
  assert.deepEqual(parseArgs(["run", "--replay-user-messages", "hi"]), { kind: "usage-error", message: refusal, topic: "run" });
  const command = parseArgs(["run", ...STREAM, "--replay-user-messages"]);
  assert.equal(command.kind === "run" && command.replayUserMessages, true);
  const dir = tempDir(t);
  const { code, stdout, stderr } = await harness(["run", "--cwd", dir, "--replay-user-messages", "--output-format", "json", "hi"], { ANTHROPIC_API_KEY: "k" }).result;
  assert.equal(code, 2);
  assert.equal(stdout, "");
  assert.equal(stderr.trim().split("\n").length, 1, stderr);
  assert.ok(stderr.startsWith(`harness: ${refusal}`), stderr);
});
