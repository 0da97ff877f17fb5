// A run's usage moves with each model call it reports (call.completed), and its end sets the very
// figures it would have set had no call been reported on the way.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ConversationSpent, HarnessState, RunnerEventPayload, Usage } from "@harness/protocol";
import { openSession } from "./session.ts";
import { commandsFrame, crashableStore, startSession, submitAndRun, until } from "./test-helpers.ts";
import { addUsage } from "./usage-count.ts";

const calls: Usage[] = [
  { inputTokens: 100, outputTokens: 10, cacheReadTokens: 0, costUsd: 0.1 },
  { inputTokens: 150, outputTokens: 20, cacheReadTokens: 90, costUsd: 0.2 },
  { inputTokens: 40, outputTokens: 5, costUsd: 0.3 },
];
const runUsage: Usage = { inputTokens: 290, outputTokens: 35, cacheReadTokens: 90, costUsd: 0.6000000000000001 };
const before: ConversationSpent = { usage: { inputTokens: 1000, outputTokens: 100, costUsd: 1 }, calls: 4, apiMs: 400, wallMs: 4000 };
const after: ConversationSpent = { usage: { inputTokens: 1290, outputTokens: 135, cacheReadTokens: 90, costUsd: 1.6 }, calls: 7, apiMs: 900, wallMs: 9000 };

/** A session whose first run spent `before`, then a second run of three calls: with `live`, each call
 * reported as it ends (the third a sub-agent's), and the state read after each. */
async function threeCalls(live: boolean, end: RunnerEventPayload) {
  const { runner, session, client } = await startSession();
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", usage: before.usage, spent: before, turns: [before.usage] });
  await until(() => !session.busy);
  const second = await submitAndRun(session, client, runner);
  second.emit({ type: "run.started", requestId: "r2" });
  const seen = [];
  for (const [i, usage] of calls.entries()) {
    second.emit({ type: "assistant.delta", text: `step ${i} ` });
    if (live) second.emit({ type: "call.completed", usage, ...(i === 2 && { agentId: "agent_1", parentToolUseId: "tu1" }) });
    await until(() => client.state!.messages[3]?.content.includes(`step ${i}`));
    seen.push(structuredClone({ usage: client.state!.usage, spent: client.state!.spent, lastCall: client.state!.lastCall }));
  }
  second.emit(end);
  await until(() => !session.busy);
  return { seen, state: client.state!, figures: figuresOf(client.state!), session };
}

function figuresOf(state: HarnessState) {
  return { status: state.status, usage: state.usage, spent: state.spent, lastCall: state.lastCall, error: state.error };
}

test("each model call of a run moves the usage, the conversation's totals and the context's fill before the run ends", async () => {
  const end: RunnerEventPayload = { type: "run.completed", result: "done", usage: runUsage, turns: calls.slice(0, 2), spent: after };
  const { seen, state, figures, session } = await threeCalls(true, end);
  assert.deepEqual(seen[0], {
    usage: { inputTokens: 1100, outputTokens: 110, cacheReadTokens: 0, costUsd: 1.1 },
    spent: { ...before, usage: { inputTokens: 1100, outputTokens: 110, cacheReadTokens: 0, costUsd: 1.1 }, calls: 5 },
    lastCall: calls[0],
  });
  assert.equal(seen[1].usage?.inputTokens, 1250);
  assert.equal(seen[1].spent?.calls, 6);
  assert.deepEqual(seen[1].lastCall, calls[1]);
  // A sub-agent's call costs, but is no measure of the main conversation's context.
  assert.equal(seen[2].usage?.inputTokens, 1290);
  assert.equal(seen[2].spent?.calls, 7);
  assert.deepEqual(seen[2].lastCall, calls[1]);

  const without = await threeCalls(false, end);
  assert.deepEqual(figures, without.figures, "the run's end sets the figures it sets without the calls reported");
  assert.deepEqual(session.snapshot().state, state);
});

test("a run that fails after some calls keeps what its end says it spent, as without the calls reported; one that says nothing keeps the calls'", async () => {
  const failed: RunnerEventPayload = { type: "run.error", message: "the model failed", usage: runUsage, spent: after };
  const live = await threeCalls(true, failed);
  const without = await threeCalls(false, failed);
  assert.deepEqual({ ...live.figures, lastCall: undefined }, { ...without.figures, lastCall: undefined });
  assert.deepEqual(live.state.lastCall, calls[1], "the context's fill is the last main call's");

  const silent = await threeCalls(true, { type: "run.error", message: "the runner went away" });
  assert.equal(silent.state.status, "error");
  assert.deepEqual(silent.state.usage, { inputTokens: 1290, outputTokens: 135, cacheReadTokens: 90, costUsd: 1.6 }, "the calls were paid for");
  assert.equal(silent.state.spent?.calls, 7);
});

test("a malformed call.completed changes nothing", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "call.completed", usage: { inputTokens: -1, outputTokens: 2 } }, { type: "call.completed", usage: { outputTokens: 2 } as never }, { type: "assistant.delta", text: "x" });
  await until(() => client.state!.messages[1]?.content === "x");
  assert.equal(client.state!.usage, undefined);
  assert.equal(client.state!.lastCall, undefined);
});

test("a session restored mid-run keeps the calls counted so far, and the run's end counts from before them", async () => {
  const { inner, store, crash } = crashableStore();
  const { runner, session, client } = await startSession({ store });
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", usage: before.usage, spent: before });
  await until(() => !session.busy);
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r2" }, { type: "call.completed", usage: calls[0] }, { type: "assistant.delta", text: "one" });
  await until(() => client.state!.messages[3].content === "one");
  await session.flush();
  crash();
  run.emit({ type: "call.completed", usage: calls[1] });

  const restored = await openSession({ runner, store: inner, onError: (e) => assert.fail(String(e)) });
  assert.equal(restored.snapshot().state.spent?.calls, 5, "the call counted before the crash");
  await until(() => restored.snapshot().state.spent?.calls === 6);
  run.emit({ type: "run.completed", usage: { ...calls[0], inputTokens: 250, outputTokens: 30, cacheReadTokens: 90, costUsd: 0.3 }, spent: { ...after, calls: 6 } });
  await until(() => !restored.busy);
  const { state } = restored.snapshot();
  assert.deepEqual(state.usage, { inputTokens: 1250, outputTokens: 130, cacheReadTokens: 90, costUsd: 1.3 });
  assert.equal(state.spent?.calls, 6);
  await restored.close();
});

test("a cancelled run keeps the calls it reported; its late end adds only what it says beyond them", async () => {
  const { runner, session, client } = await startSession();
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", usage: before.usage, spent: before });
  await until(() => !session.busy);
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r2" }, { type: "call.completed", usage: calls[0] });
  await until(() => client.state!.spent?.calls === 5);
  session.receive(client, commandsFrame({ type: "cancel" }));
  await until(() => !session.busy);
  assert.equal(client.state!.usage?.inputTokens, 1100, "what the call reported is kept");
  run.emit({ type: "run.error", message: "cancelled", usage: { inputTokens: 250, outputTokens: 30, costUsd: 0.3 }, spent: { ...after, calls: 6 } });
  await until(() => client.state!.spent?.calls === 6);
  assert.equal(client.state!.usage?.inputTokens, 1250, "the call before the cancel is not counted twice");
  assert.equal(client.state!.usage?.outputTokens, 130);
});

/** A run cancelled, then one that reports its call before the cancelled run's late end comes, and
 * ends: the state after. */
async function lateEndDuringNextRun() {
  const { runner, session, client } = await startSession();
  const cancelled = await submitAndRun(session, client, runner);
  cancelled.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "a" });
  await until(() => client.state!.messages[1]?.content === "a");
  session.receive(client, commandsFrame({ type: "cancel" }));
  await until(() => !session.busy);
  // The next prompt waits a while for the cancelled run's end, then goes ahead without it.
  const next = await submitAndRun(session, client, runner);
  next.emit({ type: "run.started", requestId: "r2" });
  next.emit({ type: "call.completed", usage: calls[0] });
  next.emit({ type: "assistant.delta", text: "b" });
  await until(() => client.state!.messages[3]?.content === "b");
  cancelled.emit({ type: "run.error", message: "cancelled", usage: { inputTokens: 500, outputTokens: 50, costUsd: 0.5 } });
  await until(() => client.state!.usage?.inputTokens === 600);
  next.emit({ type: "run.completed", result: "b", usage: calls[0] });
  await until(() => !session.busy);
  return client.state!;
}

test("a cancelled run's late end that comes while the next run reports its calls still counts once the next run ends", async () => {
  const live = await lateEndDuringNextRun();
  assert.deepEqual(live.usage, { inputTokens: 600, outputTokens: 60, cacheReadTokens: 0, costUsd: 0.6 });
});

test("a call made beside the conversation (a hook's, a web search's) counts, but is no measure of the context's fill", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "call.completed", usage: calls[1] }, { type: "call.completed", side: true, usage: calls[2] });
  await until(() => client.state!.usage?.inputTokens === 190);
  assert.deepEqual(client.state!.lastCall, calls[1]);
});

test("a call reported again under its id replaces what was counted of it: the figures move by the difference, the call count not at all, and the run's end sets what it sets without", async () => {
  const sub = { agentId: "agent_1", parentToolUseId: "tu1" };
  const begun: Usage = { inputTokens: 300, outputTokens: 1, costUsd: 0.31 };
  const real: Usage = { inputTokens: 300, outputTokens: 33, costUsd: 0.63 };
  const { runner, session, client } = await startSession();
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", usage: before.usage, spent: before });
  await until(() => !session.busy);
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r2" }, { type: "call.completed", callId: "msg_a", usage: calls[0] }, { type: "call.completed", ...sub, callId: "msg_s", usage: begun });
  await until(() => client.state!.spent?.calls === 6);
  assert.deepEqual([client.state!.usage?.inputTokens, client.state!.usage?.outputTokens], [1400, 111]);
  run.emit({ type: "call.completed", ...sub, callId: "msg_s", usage: real }, { type: "call.completed", ...sub, callId: "msg_s", usage: real }, { type: "assistant.delta", text: "x" });
  await until(() => client.state!.messages[3]?.content === "x");
  assert.equal(client.state!.spent?.calls, 6, "still two calls");
  assert.equal(client.state!.usage?.inputTokens, 1400, "the input not counted again");
  assert.equal(client.state!.usage?.outputTokens, 143, "the output as the call really had it");
  assert.ok(Math.abs(client.state!.usage!.costUsd! - 1.73) < 1e-9, String(client.state!.usage!.costUsd));
  assert.equal(client.state!.spent?.usage.outputTokens, 143);
  run.emit({ type: "run.completed", result: "x", usage: { inputTokens: 400, outputTokens: 43, costUsd: 0.8 }, spent: { ...after, calls: 6 } });
  await until(() => !session.busy);
  assert.deepEqual([client.state!.usage?.inputTokens, client.state!.usage?.outputTokens, client.state!.usage?.costUsd], [1400, 143, 1.8]);
});

test("a session restored mid-run knows the calls counted by id: one reported again after the restore is not counted twice", async () => {
  const { inner, store, crash } = crashableStore();
  const { runner, session, client } = await startSession({ store });
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "call.completed", callId: "msg_s", agentId: "a1", parentToolUseId: "tu1", usage: { inputTokens: 300, outputTokens: 1 } }, { type: "assistant.delta", text: "one" });
  await until(() => client.state!.messages[1].content === "one");
  await session.flush();
  crash();

  const restored = await openSession({ runner, store: inner, onError: (e) => assert.fail(String(e)) });
  run.emit({ type: "call.completed", callId: "msg_s", agentId: "a1", parentToolUseId: "tu1", usage: { inputTokens: 300, outputTokens: 33 } }, { type: "assistant.delta", text: " two" });
  await until(() => restored.snapshot().state.messages[1].content === "one two");
  assert.deepEqual(restored.snapshot().state.usage, { inputTokens: 300, outputTokens: 33 });
  await restored.close();
});

/** A first run spent `before`; a second one reports a call and is cancelled; a third reports a call;
 * then the cancelled run's end comes, saying what the conversation spent with all of it. */
async function lateSpentDuringNextRun() {
  const { runner, session, client } = await startSession();
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", usage: before.usage, spent: before });
  await until(() => !session.busy);
  const cancelled = await submitAndRun(session, client, runner);
  cancelled.emit({ type: "run.started", requestId: "r2" }, { type: "call.completed", usage: calls[0] });
  await until(() => client.state!.spent?.calls === 5);
  session.receive(client, commandsFrame({ type: "cancel" }));
  await until(() => !session.busy);
  const next = await submitAndRun(session, client, runner);
  next.emit({ type: "run.started", requestId: "r3" }, { type: "call.completed", usage: calls[2] }, { type: "assistant.delta", text: "b" });
  await until(() => client.state!.messages[5]?.content === "b");
  // The cancelled run made a second call, which it had not reported, and took 500 ms of API time.
  const lateSpent: ConversationSpent = { usage: addUsage(addUsage(before.usage, calls[0]), calls[1]), calls: 6, apiMs: 900, wallMs: 6000 };
  cancelled.emit({ type: "run.error", message: "cancelled", usage: addUsage(calls[0], calls[1]), spent: lateSpent });
  await until(() => client.state!.usage?.inputTokens === 1290);
  return { client, session, next, lateSpent };
}

test("a cancelled run's late end that comes after the next run counted its calls still counts in the conversation's totals", async () => {
  const { client } = await lateSpentDuringNextRun();
  const spent = client.state!.spent!;
  assert.equal(spent.calls, 7, "the three calls: the cancelled run's two, the next run's one");
  assert.deepEqual([spent.usage.inputTokens, spent.usage.outputTokens], [1290, 135]);
  assert.ok(Math.abs(spent.usage.costUsd! - 1.6) < 1e-9, String(spent.usage.costUsd));
  assert.equal(spent.apiMs, 900, "its API time too");
});

test("the late part stays when the next run fails without saying what it spent", async () => {
  const { client, session, next } = await lateSpentDuringNextRun();
  next.emit({ type: "run.error", message: "the runner went away" });
  await until(() => !session.busy);
  assert.equal(client.state!.spent?.calls, 7);
  assert.equal(client.state!.spent?.usage.inputTokens, 1290);
});

test("the next run's end, from a runner that counted the cancelled run whole, sets the totals it says: the late part is not counted twice", async () => {
  const { client, session, next, lateSpent } = await lateSpentDuringNextRun();
  const ended: ConversationSpent = { usage: addUsage(lateSpent.usage, calls[2]), calls: 7, apiMs: 1000, wallMs: 8000 };
  next.emit({ type: "run.completed", result: "b", usage: calls[2], spent: ended });
  await until(() => !session.busy);
  assert.deepEqual(client.state!.spent, ended);
  assert.deepEqual([client.state!.usage?.inputTokens, client.state!.usage?.outputTokens], [1290, 135]);
});

test("a steered run counts the calls reported before its steer once: its end sets the figures it says, not those calls again", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "call.completed", callId: "msg_1", usage: calls[0] });
  await until(() => client.state!.usage?.inputTokens === 100);
  run.emit({ type: "user.message", text: "also this", steer: true }, { type: "call.completed", callId: "msg_2", usage: calls[1] });
  await until(() => client.state!.usage?.inputTokens === 250);
  const runUsage = addUsage(calls[0], calls[1]);
  const spent: ConversationSpent = { usage: runUsage, calls: 2, apiMs: 30, wallMs: 90 };
  run.emit({ type: "run.completed", result: "done", usage: runUsage, spent });
  await until(() => !session.busy);
  assert.deepEqual(client.state!.messages.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
  assert.deepEqual(client.state!.usage, runUsage);
  assert.deepEqual(client.state!.spent, spent);
});

test("a run's end read twice (its events read again) counts once: the totals it says are the conversation's, not added to them", async () => {
  const { runner, session, client } = await startSession();
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", usage: before.usage, spent: before });
  await until(() => !session.busy);
  const run = await submitAndRun(session, client, runner);
  const end: RunnerEventPayload = { type: "run.completed", result: "done", usage: runUsage, spent: after };
  run.emit({ type: "run.started", requestId: "r2" }, { type: "call.completed", callId: "msg_1", usage: runUsage }, end, end);
  await until(() => !session.busy);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(client.state!.spent, after);
  assert.deepEqual(client.state!.usage, addUsage(before.usage, runUsage));
});
