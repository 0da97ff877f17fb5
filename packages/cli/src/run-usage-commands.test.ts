// `harness run "/context"` and "/cost": reports answered without a model call, in text and in a
// stream-json conversation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "./test-support.ts";

const user = (content: string) => `${JSON.stringify({ type: "user", message: { role: "user", content } })}\n`;

test('harness run "/context" prints how the context window is used, without a model call', async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [] }));
  const { code, stdout, stderr } = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "/context"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^Context usage: claude-sonnet-4-6 · [\d.]+k of 200k tokens/);
  for (const part of ["System prompt", "Built-in tools", "MCP tools", "Memory files", "Skills", "Messages", "Free space"]) assert.match(stdout, new RegExp(`^  ${part} +[\\d.]+k? tokens`, "m"));
  assert.equal(fake.requests.length, 0);
});

test("stream-json: /cost after a turn reports what the conversation has used and cost, without a model call", async (t) => {
  // $3 and $15 a million tokens: 1000 in and 100 out cost $0.0045.
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi.", usage: { input_tokens: 1000, output_tokens: 100 } }] }));
  const { code, stdout, stderr } = await harness(
    ["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--input-format", "stream-json", "--output-format", "stream-json"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
    { stdin: user("hello") + user("/cost") },
  ).result;
  assert.equal(code, 0, stderr);
  const results = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.type === "result");
  assert.equal(results.length, 2);
  const report = String(results[1]!.result);
  assert.match(report, /Total cost:\s+\$0\.0045/);
  assert.match(report, /Model calls:\s+1\b/);
  assert.match(report, /1\.0k input, 100 output/);
  assert.equal(fake.requests.length, 1);
});
