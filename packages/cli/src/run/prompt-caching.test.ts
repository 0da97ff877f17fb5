// Prompt caching through `harness run`: requests mark their stable prefix for the provider's cache,
// and Claude Code's switches turn that off, DISABLE_PROMPT_CACHING for every model and
// DISABLE_PROMPT_CACHING_HAIKU / _SONNET / _OPUS for one family's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

async function firstRequest(t: { after(fn: () => unknown): void }, model: string, env: Record<string, string>): Promise<string> {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "ok" }] }));
  const dir = tempDir(t);
  const run = await harness(["run", "--cwd", dir, "--model", model, "hi"], { HOME: dir, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, DISABLE_PROMPT_CACHING: "", DISABLE_PROMPT_CACHING_HAIKU: "", DISABLE_PROMPT_CACHING_SONNET: "", DISABLE_PROMPT_CACHING_OPUS: "", ...env }).result;
  assert.equal(run.code, 0, run.stderr);
  return JSON.stringify(fake.requests[0].body);
}

test("requests mark their prefix for the prompt cache unless DISABLE_PROMPT_CACHING is on", async (t) => {
  assert.match(await firstRequest(t, "claude-sonnet-4-5", {}), /"cache_control":\{"type":"ephemeral"\}/);
  assert.doesNotMatch(await firstRequest(t, "claude-sonnet-4-5", { DISABLE_PROMPT_CACHING: "1" }), /cache_control/);
});

test("DISABLE_PROMPT_CACHING_HAIKU, _SONNET and _OPUS turn it off for their family's models only", async (t) => {
  assert.doesNotMatch(await firstRequest(t, "claude-haiku-4-5", { DISABLE_PROMPT_CACHING_HAIKU: "true" }), /cache_control/);
  assert.match(await firstRequest(t, "claude-sonnet-4-5", { DISABLE_PROMPT_CACHING_HAIKU: "true" }), /cache_control/);
  assert.doesNotMatch(await firstRequest(t, "claude-opus-4-1", { DISABLE_PROMPT_CACHING_OPUS: "1" }), /cache_control/);
  assert.doesNotMatch(await firstRequest(t, "claude-sonnet-4-5", { DISABLE_PROMPT_CACHING_SONNET: "1" }), /cache_control/);
});
