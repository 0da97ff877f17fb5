// `harness run` and the model's thinking: shown with --verbose (on stderr, before the reply), else not.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const THINK_THEN_ANSWER = () => [{ thinking: ["The user ", "wants a greeting."], text: "Hello there." }];

async function run(t: Parameters<typeof withFake>[0], ...flags: string[]) {
  const fake = await withFake(t, startFakeAnthropic({ replies: THINK_THEN_ANSWER() }));
  return harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", ...flags, "say hello"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;
}

test("--verbose prints the thinking before the reply, apart from it: stdout keeps only the reply", async (t) => {
  const { code, stdout, stderr } = await run(t, "--verbose");
  assert.equal(code, 0, stderr);
  assert.equal(stdout, "Hello there.\n");
  assert.equal(stderr, "✻ Thinking…\nThe user wants a greeting.\n\n");
});

test("without --verbose the thinking is not shown; stream-json carries no new lines for it", async (t) => {
  const plain = await run(t);
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout, "Hello there.\n");
  assert.equal(plain.stderr, "");
  const stream = await run(t, "--output-format", "stream-json", "--verbose");
  assert.equal(stream.code, 0, stream.stderr);
  assert.doesNotMatch(stream.stdout, /assistant\.thinking/);
});
