// The conversation's totals (usage, and what its runner counted: spent) only grow: a run's end that
// would take them back, or that makes no sense, leaves them as they were.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationSpent, RunnerEvent } from "@harness/protocol";
import { startSession, submitAndRun, until } from "./test-helpers.ts";

const spent = (calls: number, tokens: number, costUsd: number): ConversationSpent => ({
  usage: { inputTokens: tokens, outputTokens: tokens / 10, costUsd },
  calls,
  apiMs: 100 * calls,
  wallMs: 1000 * calls,
});

/** A session whose first run ended with usage 100 / 10 tokens, $0.5, and 3 calls spent. */
async function afterOneRun() {
  const started = await startSession();
  const { runner, session, client } = started;
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.5 }, spent: spent(3, 100, 0.5) });
  await until(() => !session.busy);
  return started;
}

const reports: [string, Partial<Extract<RunnerEvent, { type: "run.completed" }>>][] = [
  ["fewer tokens, calls and cost than before", { usage: { inputTokens: -40, outputTokens: 0 }, spent: spent(2, 60, 0.2) }],
  ["the same calls with fewer tokens", { spent: spent(3, 90, 0.5) }],
  ["more calls but a lower cost", { spent: spent(4, 120, 0.1) }],
  ["numbers that are not numbers", { usage: { inputTokens: Number.NaN, outputTokens: 1 }, spent: { ...spent(4, 120, 0.6), apiMs: Number.POSITIVE_INFINITY } }],
  ["parts missing", { usage: { inputTokens: 5 } as never, spent: { usage: { inputTokens: 200 }, calls: 5 } as never }],
];

for (const [what, report] of reports) {
  test(`a run's end that reports ${what} leaves the conversation's totals as they were, and the session goes on`, async () => {
    const { runner, session, client } = await afterOneRun();
    const usage = client.state!.usage;
    const held = client.state!.spent;
    const second = await submitAndRun(session, client, runner);
    second.emit({ type: "run.started", requestId: "r2" }, { type: "assistant.delta", text: "done" }, { type: "run.completed", ...report });
    await until(() => !session.busy);
    assert.equal(client.state!.status, "idle");
    assert.equal(client.state!.messages[3].status, "complete");
    assert.deepEqual(client.state!.usage, usage);
    assert.deepEqual(client.state!.spent, held);
    assert.deepEqual(session.snapshot().state, client.state);

    const third = await submitAndRun(session, client, runner);
    assert.deepEqual(third.body.spentBefore, held, "the next query goes on from the totals held");
    third.emit({ type: "run.started", requestId: "r3" }, { type: "run.completed", usage: { inputTokens: 1, outputTokens: 1 }, spent: spent(5, 150, 0.75) });
    await until(() => !session.busy);
    assert.deepEqual(client.state!.usage, { inputTokens: 101, outputTokens: 11, costUsd: 0.5 });
    assert.deepEqual(client.state!.spent, spent(5, 150, 0.75));
  });
}

test("a failed run's end that would take the totals back leaves them as they were too", async () => {
  const { runner, session, client } = await afterOneRun();
  const held = client.state!.spent;
  const second = await submitAndRun(session, client, runner);
  second.emit({ type: "run.started", requestId: "r2" }, { type: "run.error", message: "the model failed", usage: { inputTokens: 1, outputTokens: -1 }, spent: spent(1, 10, 0.05) });
  await until(() => !session.busy);
  assert.deepEqual(client.state!.usage, { inputTokens: 100, outputTokens: 10, costUsd: 0.5 });
  assert.deepEqual(client.state!.spent, held);
});
