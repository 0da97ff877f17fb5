import assert from "node:assert/strict";
import { test } from "node:test";
import { costUsd, priceOf } from "./cost.ts";

const million = (inputTokens: number, outputTokens = 0, cacheReadTokens = 0, cacheWriteTokens = 0) => ({
  inputTokens: inputTokens * 1e6,
  outputTokens: outputTokens * 1e6,
  cacheReadTokens: cacheReadTokens * 1e6,
  cacheWriteTokens: cacheWriteTokens * 1e6,
});

const close = (actual: number, expected: number, label: string) => assert.ok(Math.abs(actual - expected) < 1e-9, `${label}: ${actual}, expected ${expected}`);

test("each token kind is priced per million at the model's rate", () => {
  // Sonnet: $3 in, $15 out, $0.30 cache read, $3.75 cache write.
  close(costUsd("claude-sonnet-4-6", million(1, 1, 1, 1)), 3 + 15 + 0.3 + 3.75, "sonnet 4.6");
  close(costUsd("claude-sonnet-4-6", { inputTokens: 1200, outputTokens: 300 }), (1200 * 3 + 300 * 15) / 1e6, "without cache counters");
});

test("families and versions are told apart by prefix, dated ids included", () => {
  const inputPrice = (model: string) => priceOf(model)?.input;
  assert.equal(inputPrice("claude-opus-4-6"), 5);
  assert.equal(inputPrice("claude-opus-4-5-20251101"), 5);
  assert.equal(inputPrice("claude-opus-4-1-20250805"), 15);
  assert.equal(inputPrice("claude-opus-4-20250514"), 15);
  assert.equal(inputPrice("claude-opus-4-0"), 15);
  assert.equal(inputPrice("claude-3-opus-20240229"), 15);
  assert.equal(inputPrice("claude-sonnet-4-5-20250929"), 3);
  assert.equal(inputPrice("claude-3-7-sonnet-latest"), 3);
  assert.equal(inputPrice("claude-haiku-4-5-20251001"), 1);
  assert.equal(inputPrice("claude-3-5-haiku-20241022"), 0.8);
  assert.equal(inputPrice("claude-3-haiku-20240307"), 0.25);
  // A version newer than the table is priced as its family is now.
  assert.equal(inputPrice("claude-opus-4-7"), 5);
  assert.equal(inputPrice("claude-haiku-5"), 1);
});

test("ids from gateways and cloud platforms are recognised", () => {
  assert.equal(priceOf("anthropic/claude-sonnet-4.5")?.input, 3);
  assert.equal(priceOf("us.anthropic.claude-opus-4-1-20250805-v1:0")?.input, 15);
  assert.equal(priceOf("claude-opus-4-1@20250805")?.input, 15);
  assert.equal(priceOf("claude-sonnet-4-5[1m]")?.input, 3);
});

test("a prompt over 200k tokens on Sonnet 4 / 4.5 is billed at the long-context rate", () => {
  close(costUsd("claude-sonnet-4-5", { inputTokens: 150_000, outputTokens: 0, cacheReadTokens: 100_000 }), (150_000 * 6 + 100_000 * 0.6) / 1e6, "long");
  close(costUsd("claude-sonnet-4-5", { inputTokens: 150_000, outputTokens: 1000 }), (150_000 * 3 + 1000 * 15) / 1e6, "short");
});

test("unknown and local models cost 0", () => {
  for (const model of ["gpt-5", "qwen3:8b", "llama3.2", "claude", "claudeish-1", ""]) {
    assert.equal(costUsd(model, million(1, 1)), 0, model);
    assert.equal(priceOf(model), undefined, model);
  }
});
