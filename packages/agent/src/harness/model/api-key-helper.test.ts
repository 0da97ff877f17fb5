import assert from "node:assert/strict";
import { test } from "node:test";
import type { RunAgentOptions } from "../../types.ts";
import { withHelperKey } from "./api-key-helper.ts";

const run = { prompt: "hi", env: { PATH: process.env.PATH } } as unknown as RunAgentOptions;

test("a helper whose command leaves a process holding its output is given up on at the time limit", async () => {
  const started = Date.now();
  const keyed = await withHelperKey(run, "sleep 30; echo late-key", "claude-sonnet-4-5", process.cwd(), 300);
  assert.ok(!keyed.ok);
  assert.match(keyed.error, /apiKeyHelper \(sleep 30; echo late-key\) gave no key within 0.3 s/);
  assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
});

test("a helper's key is used for Anthropic's models", async () => {
  const keyed = await withHelperKey(run, "echo helper-key-1", "claude-sonnet-4-5", process.cwd(), 5_000);
  assert.ok(keyed.ok);
  assert.equal(keyed.options.providerOptions?.anthropic?.apiKey, "helper-key-1");
});
