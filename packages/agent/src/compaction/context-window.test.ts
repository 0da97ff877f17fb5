import assert from "node:assert/strict";
import { test } from "node:test";
import { autoCompactPercentSetting, compactThreshold, compactThresholdSetting, contextTokensOf, contextWindowFor, shouldCompact } from "./context-window.ts";

test("compaction is due once the last request read the threshold share of the context window", () => {
  const env = {};
  assert.equal(shouldCompact({ lastInputTokens: 159_999, contextWindow: 200_000, env }), false);
  assert.equal(shouldCompact({ lastInputTokens: 160_000, contextWindow: 200_000, env }), true);
  assert.equal(shouldCompact({ lastInputTokens: 100_000, contextWindow: 200_000, threshold: 0.5 }), true);
  assert.equal(shouldCompact({ lastInputTokens: 99_999, contextWindow: 200_000, threshold: 0.5 }), false);
  assert.equal(shouldCompact({ lastInputTokens: 0, contextWindow: 200_000, env }), false);
  assert.equal(shouldCompact({ lastInputTokens: 10, contextWindow: 0, env }), false);
});

test("HARNESS_COMPACT_THRESHOLD sets the threshold as a fraction or a percentage; nonsense is ignored", () => {
  assert.equal(compactThreshold({}), 0.8);
  assert.equal(compactThreshold({ HARNESS_COMPACT_THRESHOLD: "0.6" }), 0.6);
  assert.equal(compactThreshold({ HARNESS_COMPACT_THRESHOLD: "75" }), 0.75);
  assert.equal(compactThreshold({ HARNESS_COMPACT_THRESHOLD: "lots" }), 0.8);
  assert.equal(compactThreshold({ HARNESS_COMPACT_THRESHOLD: "-1" }), 0.8);
  assert.equal(compactThreshold({ HARNESS_COMPACT_THRESHOLD: "250" }), 0.8);
  assert.equal(shouldCompact({ lastInputTokens: 120_000, contextWindow: 200_000, env: { HARNESS_COMPACT_THRESHOLD: "0.6" } }), true);
  assert.equal(shouldCompact({ lastInputTokens: 119_000, contextWindow: 200_000, env: { HARNESS_COMPACT_THRESHOLD: "60" } }), false);
});

test("context windows: Claude 200k, 1M variants, known and unknown families, and the override", () => {
  const env = {};
  assert.equal(contextWindowFor("claude-sonnet-4-6", env), 200_000);
  assert.equal(contextWindowFor("anthropic/claude-opus-4-1", env), 200_000);
  assert.equal(contextWindowFor("claude-sonnet-4-5[1m]", env), 1_000_000);
  assert.equal(contextWindowFor("claude-sonnet-4-5-1m", env), 1_000_000);
  assert.equal(contextWindowFor("openai/gpt-4o-mini", env), 128_000);
  assert.equal(contextWindowFor("openai/gpt-4.1", env), 1_047_576);
  assert.equal(contextWindowFor("ollama/qwen3:8b", env), 128_000);
  assert.equal(contextWindowFor("claude-sonnet-4-6", { HARNESS_CONTEXT_WINDOW: "32000" }), 32_000);
  assert.equal(contextWindowFor("claude-sonnet-4-6", { HARNESS_CONTEXT_WINDOW: "big" }), 200_000);
});

test("the context a request used counts cached input too", () => {
  assert.equal(contextTokensOf({ inputTokens: 10, outputTokens: 500 }), 10);
  assert.equal(contextTokensOf({ inputTokens: 10, outputTokens: 5, cacheReadTokens: 90_000, cacheWriteTokens: 2_000 }), 92_010);
});

test("CLAUDE_AUTOCOMPACT_PCT_OVERRIDE lowers the threshold as a percentage; above the default it has no effect; HARNESS_COMPACT_THRESHOLD wins", () => {
  assert.equal(compactThreshold({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "50" }), 0.5);
  assert.equal(compactThreshold({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "95" }), 0.8);
  assert.equal(compactThreshold({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "50", HARNESS_COMPACT_THRESHOLD: "0.9" }), 0.9);
  assert.equal(compactThreshold({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "0" }), 0.8);
  assert.equal(autoCompactPercentSetting({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "half" }).problem, 'CLAUDE_AUTOCOMPACT_PCT_OVERRIDE must be a percentage of the context window from 1 to 100, got "half"');
  assert.equal(autoCompactPercentSetting({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "101" }).problem !== undefined, true);
  assert.deepEqual(autoCompactPercentSetting({}), {});
});

test("the compaction settings take decimals, ignore blanks, and name what a bad value should be", () => {
  assert.deepEqual(autoCompactPercentSetting({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: " 12.5 " }), { value: 0.125 });
  assert.deepEqual(autoCompactPercentSetting({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "  " }), {});
  assert.deepEqual(autoCompactPercentSetting({ CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "Infinity" }).value, undefined);
  assert.deepEqual(compactThresholdSetting({ HARNESS_COMPACT_THRESHOLD: "0.5" }), { value: 0.5 });
  assert.deepEqual(compactThresholdSetting({}), {});
  assert.deepEqual(compactThresholdSetting({ HARNESS_COMPACT_THRESHOLD: "0" }), {
    problem: 'HARNESS_COMPACT_THRESHOLD must be a fraction (0.75) or a percentage (75) of the context window, got "0"',
  });
});
