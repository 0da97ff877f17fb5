// `harness run "/context"` and "/cost": reports answered without a model call, in text and in a
// stream-json conversation.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, startFakeOpenAI } from "@harness/test-utils";
import { runsDir } from "./history.ts";
import { harness, tempDir, withFake } from "../test-support.ts";

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

/** A stream-json conversation of "hello" then "/cost" with `model` on the fake OpenAI-compatible
 * server: /cost's report, and the result of the first turn. */
async function costOnOpenAI(t: TestContext, model: string, baseUrlVariable: "OPENAI_BASE_URL" | "OLLAMA_BASE_URL") {
  const fake = await startFakeOpenAI({ replies: [{ text: "Hi.", usage: { prompt_tokens: 1000, completion_tokens: 100 } }] });
  t.after(() => fake.close());
  const { code, stdout, stderr } = await harness(
    ["run", "--cwd", tempDir(t), "--model", model, "--input-format", "stream-json", "--output-format", "stream-json"],
    { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", [baseUrlVariable]: fake.url },
    { stdin: user("hello") + user("/cost") },
  ).result;
  assert.equal(code, 0, stderr);
  const results = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.type === "result");
  assert.equal(results.length, 2);
  return { report: String(results[1]!.result), first: results[0]! };
}

test("stream-json: /cost says the cost of a model without a known price is not known, not $0", async (t) => {
  const { report, first } = await costOnOpenAI(t, "openai/qwen3-235b-a22b", "OPENAI_BASE_URL");
  assert.match(report, /Total cost:\s+not known \(no price for openai\/qwen3-235b-a22b\)/);
  assert.doesNotMatch(report, /\$0\.0000/);
  assert.match(report, /1\.0k input, 100 output/);
  // The result's total_cost_usd is a number on the wire (Claude Code's format): 0 there.
  assert.equal(first.total_cost_usd, 0);
});

test("stream-json: /cost says a model Ollama runs on this machine cost $0", async (t) => {
  const { report } = await costOnOpenAI(t, "ollama/qwen3:8b", "OLLAMA_BASE_URL");
  assert.match(report, /Total cost:\s+\$0\.0000/);
});

test("/cost counts on across --continue and --resume: the conversation's earlier runs, in other processes, are in it", async (t) => {
  // Each reply: 1000 in and 100 out, $0.0045.
  const reply = { text: "Hi.", usage: { input_tokens: 1000, output_tokens: 100 } };
  const fake = await withFake(t, startFakeAnthropic({ replies: [reply, reply] }));
  const cwd = tempDir(t);
  const run = (args: string[]) =>
    harness(["run", "--cwd", cwd, "--model", "claude-sonnet-4-6", "--output-format", "json", ...args], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }).result;

  const first = await run(["hello"]);
  assert.equal(first.code, 0, first.stderr);
  const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
  const second = await run(["--continue", "again"]);
  assert.equal(second.code, 0, second.stderr);

  const cost = await run(["--resume", id, "/cost"]);
  assert.equal(cost.code, 0, cost.stderr);
  const report = String((JSON.parse(cost.stdout) as { result: string }).result);
  assert.match(report, /Total cost:\s+\$0\.0090/);
  assert.match(report, /Model calls:\s+2\b/);
  assert.match(report, /2\.0k input, 200 output/);
  assert.equal(fake.requests.length, 2, "the report needs no model call");
  // A conversation of its own starts from nothing.
  const fresh = await run(["/cost"]);
  assert.match(String((JSON.parse(fresh.stdout) as { result: string }).result), /Total cost:\s+\$0\.0000[\s\S]*Model calls:\s+0\b/);
});

test("--resume refuses a kept conversation whose totals are damaged, naming the file and the field", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hi." }] }));
  const cwd = tempDir(t);
  const home = tempDir(t);
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HOME: home };
  const first = await harness(["run", "--cwd", cwd, "--model", "claude-sonnet-4-6", "--output-format", "json", "hello"], env).result;
  const id = (JSON.parse(first.stdout) as { session_id: string }).session_id;
  const file = join(runsDir(home, realpathSync(cwd)), `${id}.json`);
  const kept = JSON.parse(readFileSync(file, "utf8")) as { spent: { calls: unknown; usage: { inputTokens: unknown } } };
  assert.equal(typeof kept.spent.calls, "number", "the totals are kept with the conversation");
  const resume = async (damage: (spent: typeof kept.spent) => void, field: string) => {
    const damaged = structuredClone(kept);
    damage(damaged.spent);
    writeFileSync(file, JSON.stringify(damaged));
    const resumed = await harness(["run", "--cwd", cwd, "--model", "claude-sonnet-4-6", "--resume", id, "/cost"], env).result;
    assert.equal(resumed.code, 1);
    assert.match(resumed.stderr, new RegExp(`${id}\\.json: ${field.replaceAll(".", "\\.")}: .*`));
  };
  await resume((spent) => (spent.calls = -1), "spent.calls");
  // A count of tokens below zero would be shown by /cost as it is.
  await resume((spent) => (spent.usage.inputTokens = -3), "spent.usage.inputTokens");
});
