// A claude-code run's part of the conversation's totals, from Claude Code's result lines as the
// binary writes them (running API time, each turn's own duration).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import { apiMsOf, runningApiMs, spentAfter, wallMsOf } from "./spent.ts";

const result = (durationMs: number, apiMs: number) => ({ type: "result", subtype: "success", duration_ms: durationMs, duration_api_ms: apiMs }) as SDKResultMessage;

test("the run's time is the sum of its turns' own; its API time is the growth of the session's running total", () => {
  // Two turns in one process (a steer taken after the first result): 1735 ms of API time in all,
  // 1053 of them before the run.
  const results = [result(330, 1288), result(474, 1735)];
  assert.equal(wallMsOf(results), 804);
  assert.equal(apiMsOf(results, 1053), 682);
  assert.equal(apiMsOf(results, 0), 1735, "a new session's total is all its own");
  assert.equal(apiMsOf([], 1053), 0, "no result, no time told");
  // A turn of a local command (/context) made no model call: its result says 0, not the running total.
  assert.equal(apiMsOf([result(330, 1288), result(30, 0)], 1053), 235);
  assert.equal(runningApiMs([result(30, 0), result(474, 1735)]), 1735);
});

test("without a baseline it continues, the API time is taken no further than the run's own time", () => {
  const results = [result(313, 1053)];
  assert.equal(apiMsOf(results, undefined), 313, "a store that lost the session's total");
  assert.equal(apiMsOf(results, 1500), 313, "a total below the one before: a fork from an earlier point, a /clear");
  assert.equal(apiMsOf([result(900, 250)], undefined), 250);
  assert.equal(apiMsOf([{ ...result(-5, Number.NaN) }], undefined), 0, "figures that are no counts count nothing");
});

test("the conversation's totals are those before plus the run's part, key by key", () => {
  const before = { usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.0006 }, calls: 1, apiMs: 820, wallMs: 996 };
  const run = { usage: { inputTokens: 200, outputTokens: 20, cacheReadTokens: 5, costUsd: 0.0012 }, calls: 1, apiMs: 233, wallMs: 313 };
  const spent = spentAfter(before, run);
  assert.deepEqual({ ...spent, usage: { ...spent.usage, costUsd: spent.usage.costUsd?.toFixed(4) } }, {
    usage: { inputTokens: 300, outputTokens: 30, cacheReadTokens: 5, costUsd: "0.0018" },
    calls: 2,
    apiMs: 1053,
    wallMs: 1309,
  });
  assert.deepEqual(spentAfter(undefined, run), run, "a conversation's first run counts from zero");
});
