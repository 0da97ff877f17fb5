import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultModel, resolveRetrySettings } from "./settings.ts";

test("defaultModel is HARNESS_MODEL when set, else claude-sonnet-4-6", () => {
  assert.equal(defaultModel({ HARNESS_MODEL: "claude-opus-4-1" }), "claude-opus-4-1");
  assert.equal(defaultModel({}), "claude-sonnet-4-6");
  assert.equal(defaultModel({ HARNESS_MODEL: "  " }), "claude-sonnet-4-6", "a blank value counts as unset");
});

test("retry settings: options win over the environment, which wins over the defaults", () => {
  assert.deepEqual(resolveRetrySettings({}, {}), { maxRetries: 4, retryBaseMs: 500, streamIdleMs: 120_000 });
  assert.deepEqual(resolveRetrySettings({}, { HARNESS_MODEL_RETRIES: "0", HARNESS_RETRY_BASE_MS: "20", HARNESS_STREAM_IDLE_MS: "5000" }), {
    maxRetries: 0,
    retryBaseMs: 20,
    streamIdleMs: 5000,
  });
  assert.deepEqual(resolveRetrySettings({ maxRetries: 7, retryBaseMs: 3, streamIdleMs: 9 }, { HARNESS_MODEL_RETRIES: "1", HARNESS_RETRY_BASE_MS: "20" }), {
    maxRetries: 7,
    retryBaseMs: 3,
    streamIdleMs: 9,
  });
  assert.throws(() => resolveRetrySettings({}, { HARNESS_STREAM_IDLE_MS: "0" }), /HARNESS_STREAM_IDLE_MS must be at least 1/);
  assert.throws(() => resolveRetrySettings({}, { HARNESS_MODEL_RETRIES: "2.5" }), /HARNESS_MODEL_RETRIES must be a whole number of at least 0, got "2.5"/);
  assert.throws(() => resolveRetrySettings({ retryBaseMs: -1 }, {}), /retryBaseMs must be a whole number/);
});
