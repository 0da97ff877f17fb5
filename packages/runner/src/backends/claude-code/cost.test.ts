// /cost under the claude-code backend answers from the conversation's totals the query brings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { answerCost, isCostPrompt } from "./cost.ts";
import { drivenContext } from "./test-support.ts";

test("only /cost itself is the report's prompt", () => {
  for (const prompt of ["/cost", "  /cost\n", "/cost please"]) assert.equal(isCostPrompt(prompt), true, prompt);
  for (const prompt of ["/costs", "what does /cost say?", "/context", "cost"]) assert.equal(isCostPrompt(prompt), false, prompt);
});

test("the report says the conversation's totals, streams as the reply and spends nothing", () => {
  const run = drivenContext({ workspace: "/nowhere", stateDir: "/nowhere" });
  const spentBefore = { usage: { inputTokens: 1500, outputTokens: 150, costUsd: 0.009 }, calls: 4, apiMs: 1966, wallMs: 4200 };
  const outcome = answerCost({ prompt: "/cost", resumeSessionId: "cc-1", spentBefore }, run.ctx, 1_000_000);
  assert.ok(outcome.ok);
  assert.equal(outcome.result, ["Total cost:            $0.0090", "Total duration (API):  2.0s", "Total duration (wall): 4.2s", "Model calls:           4", "Usage:                 1.5k input, 150 output, 0 cache read, 0 cache write"].join("\n"));
  assert.deepEqual(run.events, [{ type: "assistant.delta", text: outcome.result }]);
  assert.deepEqual([outcome.spent, outcome.usage, outcome.sessionId], [spentBefore, { inputTokens: 0, outputTokens: 0 }, "cc-1"]);
  const first = answerCost({ prompt: "/cost" }, drivenContext({ workspace: "/nowhere", stateDir: "/nowhere" }).ctx);
  assert.ok(first.ok);
  assert.match(first.result, /Total cost:\s+\$0\.0000\n[^]*Model calls:\s+0\n/, "a conversation with no run yet");
  assert.equal(first.sessionId, undefined);
});
