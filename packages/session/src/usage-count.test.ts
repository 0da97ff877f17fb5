import { test } from "node:test";
import assert from "node:assert/strict";
import { addUsage, usageBeyond } from "./usage-count.ts";

test("the calls whose server reported no usage are counted in the session's totals as the other counts are", () => {
  const first = { inputTokens: 0, outputTokens: 0, unreportedCalls: 1 };
  const total = addUsage(addUsage(undefined, first), { inputTokens: 10, outputTokens: 2, unreportedCalls: 2 });
  assert.deepEqual(total, { inputTokens: 10, outputTokens: 2, unreportedCalls: 3 });
  assert.deepEqual(usageBeyond(total, first), { inputTokens: 10, outputTokens: 2, unreportedCalls: 2 });
});
