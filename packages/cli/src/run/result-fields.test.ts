// `harness run --output-format json|stream-json`: the fields of Claude Code's result message that
// scripts read for accounting (duration_api_ms, modelUsage, uuid).
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The main model hands a task to a sub-agent on another model, then answers. */
async function delegatingRun(t: Parameters<typeof tempDir>[0], format: "json" | "stream-json") {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ name: "Task", input: { description: "Look", prompt: "Look around", subagent_type: "scout" } }], usage: { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 40 } },
        { text: "Found it.", usage: { input_tokens: 50, output_tokens: 5, cache_creation_input_tokens: 7 } },
        { text: "Done.", usage: { input_tokens: 200, output_tokens: 20 } },
      ],
    }),
  );
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude", "agents"), { recursive: true });
  writeFileSync(join(dir, ".claude", "agents", "scout.md"), "---\nname: scout\ndescription: Looks around.\nmodel: claude-haiku-4-5\n---\nYou look around.\n");
  const { code, stdout, stderr } = await harness(
    ["run", "--cwd", dir, "--model", "claude-sonnet-4-6", "--permission-mode", "bypassPermissions", "--output-format", format, "delegate"],
    { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url },
  ).result;
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout.trimEnd().split("\n").at(-1)!);
}

test("json: modelUsage gives each model's tokens, cost and context window, sub-agents' models included", async (t) => {
  const result = await delegatingRun(t, "json");
  assert.deepEqual(Object.keys(result.modelUsage).sort(), ["claude-haiku-4-5", "claude-sonnet-4-6"]);
  const main = result.modelUsage["claude-sonnet-4-6"];
  const scout = result.modelUsage["claude-haiku-4-5"];
  assert.deepEqual(
    { ...main, costUSD: undefined },
    { inputTokens: 300, outputTokens: 30, cacheReadInputTokens: 40, cacheCreationInputTokens: 0, webSearchRequests: 0, costUSD: undefined, contextWindow: 200_000 },
  );
  assert.deepEqual(
    { ...scout, costUSD: undefined },
    { inputTokens: 50, outputTokens: 5, cacheReadInputTokens: 0, cacheCreationInputTokens: 7, webSearchRequests: 0, costUSD: undefined, contextWindow: 200_000 },
  );
  assert.ok(main.costUSD > scout.costUSD && scout.costUSD > 0, JSON.stringify(result.modelUsage));
  assert.ok(Math.abs(main.costUSD + scout.costUSD - result.total_cost_usd) < 1e-9, "the models' costs add up to the total");
});

test("json and stream-json: the result has duration_api_ms within duration_ms and a uuid of its own", async (t) => {
  const json = await delegatingRun(t, "json");
  const stream = await delegatingRun(t, "stream-json");
  for (const result of [json, stream]) {
    assert.equal(result.type, "result");
    assert.ok(Number.isInteger(result.duration_api_ms) && result.duration_api_ms >= 0 && result.duration_api_ms <= result.duration_ms, `${result.duration_api_ms} of ${result.duration_ms}`);
    assert.match(result.uuid, UUID);
    assert.ok(result.modelUsage["claude-haiku-4-5"]);
  }
  assert.notEqual(json.uuid, stream.uuid);
});

test("json: a run that failed before any model call has an empty modelUsage and no API time", async (t) => {
  const { code, stdout } = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--output-format", "json", "hi"], { ANTHROPIC_API_KEY: "" }).result;
  assert.equal(code, 1);
  const result = JSON.parse(stdout);
  assert.deepEqual({ modelUsage: result.modelUsage, duration_api_ms: result.duration_api_ms }, { modelUsage: {}, duration_api_ms: 0 });
  assert.match(result.uuid, UUID);
});
