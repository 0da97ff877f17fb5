// What a session tells its host's counts (SessionOptions.counts): commands by type, error frames by
// code, runs started and how they ended, and the usage it counts, each once.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Usage } from "@harness/protocol";
import type { RunOutcome, SessionCounts } from "./ports.ts";
import { openSession } from "./session.ts";
import { commandsFrame, crashableStore, startSession, submitAndRun, until } from "./test-helpers.ts";
import { addUsage } from "./usage-count.ts";

function tally() {
  const seen = { commands: [] as string[], refused: [] as string[], notices: [] as string[], started: 0, ended: [] as RunOutcome[], atStart: 0, usage: undefined as Usage | undefined };
  const counts: SessionCounts = {
    command: (type) => seen.commands.push(type),
    refused: (code) => seen.refused.push(code),
    notice: (code) => seen.notices.push(code),
    runStarted: () => seen.started++,
    runEnded: (outcome) => seen.ended.push(outcome),
    runInterruptedAtStart: () => seen.atStart++,
    usage: (added) => (seen.usage = addUsage(seen.usage, added)),
  };
  return { seen, counts };
}

test("a session counts its commands, its refusals and each run's outcome: completed, error, cancelled, interrupted", async () => {
  const { seen, counts } = tally();
  const { runner, session, client } = await startSession({ counts });
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed" });
  await until(() => !session.busy);
  const second = await submitAndRun(session, client, runner);
  second.emit({ type: "run.started", requestId: "r2" }, { type: "run.error", message: "the model refused the key" });
  await until(() => !session.busy);
  await submitAndRun(session, client, runner);
  session.receive(client, commandsFrame({ type: "cancel" }));
  await until(() => !session.busy);
  session.receive(client, commandsFrame({ type: "cancel" }));
  session.receive(client, "{");
  await until(() => client.errors.length === 2);
  await submitAndRun(session, client, runner);
  await session.close();
  assert.deepEqual(seen.commands, ["submit", "submit", "submit", "cancel", "cancel", "submit"]);
  assert.deepEqual(seen.refused, ["not_running", "bad_json"]);
  assert.equal(seen.started, 4);
  assert.deepEqual(seen.ended, ["completed", "error", "cancelled", "interrupted"]);
});

test("the usage a session counts is told once, however the calls' reports and the run's end set it", async () => {
  const { seen, counts } = tally();
  const { runner, session, client } = await startSession({ counts });
  const run = await submitAndRun(session, client, runner);
  run.emit(
    { type: "run.started", requestId: "r1" },
    { type: "call.completed", callId: "c1", usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.1 } },
    { type: "call.completed", callId: "c1", usage: { inputTokens: 100, outputTokens: 10, costUsd: 0.1 } },
    { type: "call.completed", callId: "c2", usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 40, costUsd: 0.05 } },
    { type: "run.completed", usage: { inputTokens: 150, outputTokens: 15, cacheReadTokens: 40, cacheWriteTokens: 7, costUsd: 0.15 } },
  );
  await until(() => !session.busy);
  assert.deepEqual(client.state!.usage, { inputTokens: 150, outputTokens: 15, cacheReadTokens: 40, cacheWriteTokens: 7, costUsd: 0.15 });
  assert.equal(seen.usage?.inputTokens, 150);
  assert.equal(seen.usage?.outputTokens, 15);
  assert.equal(seen.usage?.cacheReadTokens, 40);
  assert.equal(seen.usage?.cacheWriteTokens, 7);
  assert.equal(seen.usage?.costUsd?.toFixed(9), "0.150000000");
});

test("a session deleted under its clients tells them so, which is a notice and no refusal", async () => {
  const { seen, counts } = tally();
  const { session, client } = await startSession({ counts });
  session.discard("the session was deleted");
  assert.deepEqual(client.errors.map((e) => e.code), ["session_deleted"]);
  assert.deepEqual(seen.notices, ["session_deleted"]);
  assert.deepEqual(seen.refused, []);
});

/** A session whose run (r1) was going when its host crashed, and the store it left. */
async function leftByACrash() {
  const { inner, store, crash } = crashableStore();
  const { session, client, runner } = await startSession({ store });
  const run = await submitAndRun(session, client, runner, "q");
  run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "half" });
  await until(() => client.state!.messages[1].content === "half");
  await session.flush();
  crash();
  return { runner, run, inner };
}

test("a run a previous host left is counted interrupted at start when its runner is gone, not started nor ended", async () => {
  const { runner, inner } = await leftByACrash();
  runner.gone = true;
  const { seen, counts } = tally();
  const restored = await openSession({ runner, store: inner, counts, onError: (e) => assert.fail(String(e)) });
  await until(() => !restored.busy);
  assert.equal(restored.snapshot().state.status, "error");
  assert.deepEqual({ started: seen.started, ended: seen.ended, atStart: seen.atStart }, { started: 0, ended: [], atStart: 1 });
});

test("a run a previous host left that goes on is counted started once its runner answers, and ended as it ends", async () => {
  const { runner, run, inner } = await leftByACrash();
  const { seen, counts } = tally();
  const restored = await openSession({ runner, store: inner, counts, onError: (e) => assert.fail(String(e)) });
  await until(() => runner.attaches.length === 1);
  assert.equal(seen.started, 0, "not before the runner answers");
  run.emit({ type: "assistant.delta", text: " done" }, { type: "run.completed" });
  await until(() => !restored.busy);
  assert.deepEqual({ started: seen.started, ended: seen.ended, atStart: seen.atStart }, { started: 1, ended: ["completed"], atStart: 0 });
});
