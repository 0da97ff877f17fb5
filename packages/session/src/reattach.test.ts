// A host that dies mid-run: the run goes on in the runner, and the session restored from the store
// re-attaches to it and applies every event it had not stored, exactly once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createFakeRunner, type FakeRunner } from "./fake-runner.ts";
import { INTERRUPTED_MESSAGE } from "./run-outcome.ts";
import { openSession } from "./session.ts";
import type { SessionStore, WriteOptions } from "./store.ts";
import { memoryStore } from "./store.ts";
import { commandsFrame, crashableStore, recorder, startSession, submitAndRun, until } from "./test-helpers.ts";

function restore(runner: FakeRunner, store: SessionStore) {
  return openSession({ runner, store, onError: (e) => assert.fail(String(e)) });
}

/** A session whose run (r1) streamed `text`, all of it stored; then its host crashed. */
async function crashedMidRun(text: string, prompt?: string) {
  const { inner, store, crash } = crashableStore();
  const started = await startSession({ store });
  const { session, client, runner } = started;
  const run = await submitAndRun(session, client, runner, prompt);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text });
  await until(() => client.state!.messages[1].content === text);
  await session.flush();
  crash();
  return { ...started, run, inner };
}

test("the run goes on across a host crash: events not stored are applied once, events emitted meanwhile arrive, the run finishes", async () => {
  const { inner, store, crash } = crashableStore();
  const { runner, session, client } = await startSession({ store });
  const run = await submitAndRun(session, client, runner, "count");
  run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "one " }, { type: "assistant.delta", text: "two " });
  await until(() => client.state!.messages[1].content === "one two ");
  await session.flush();
  assert.deepEqual(inner.run?.lastEventSeq, 3, "the stored run record goes as far as the stored batches");
  assert.equal(inner.run?.requestId, "r1");
  const storedSeq = client.seq;

  crash();
  run.emit({ type: "assistant.delta", text: "three " });
  await until(() => client.state!.messages[1].content === "one two three ");
  // While the host is down the runner goes on.
  run.emit({ type: "tool.started", toolName: "Bash", toolUseId: "t1" }, { type: "assistant.delta", text: "four " });

  const restored = await restore(runner, inner);
  assert.deepEqual(runner.attaches, [{ requestId: "r1", afterSeq: 3 }]);
  const back = recorder({ state: client.state!, seq: storedSeq });
  // The client saw a batch that was never stored (" three "): it must not keep it.
  restored.connect(back, client.seq);
  await until(() => restored.snapshot().state.messages[1].content.includes("four"));
  run.emit({ type: "assistant.delta", text: "five" }, { type: "run.completed" });
  await until(() => !restored.busy);
  const { state } = restored.snapshot();
  assert.equal(state.status, "idle");
  assert.equal(state.messages[1].content, "one two three \n\nfour five");
  assert.equal(state.messages[1].status, "complete");
  assert.deepEqual(back.state, state);
  await restored.close();
  assert.equal(inner.run, undefined, "no run is recorded once it ended");
});

test("a client that saw only stored batches gets the rest as deltas across the crash", async () => {
  const { runner, client, run, inner } = await crashedMidRun("a");
  run.emit({ type: "assistant.delta", text: "b" });

  const restored = await restore(runner, inner);
  const back = recorder({ state: client.state!, seq: client.seq });
  restored.connect(back, client.seq);
  run.emit({ type: "run.completed" });
  await until(() => back.state!.status === "idle");
  assert.ok(back.frames.every((f) => f.type === "delta"));
  assert.equal(back.state!.messages[1].content, "ab");
  assert.deepEqual(back.state, restored.snapshot().state);
});

test("a run that ended while the host was down is finished from its remaining events", async () => {
  const { runner, run, inner } = await crashedMidRun("partial", "q");
  const transcript = [{ role: "user" as const, content: "q" }, { role: "assistant" as const, content: "partial answer" }];
  run.emit({ type: "assistant.delta", text: " answer" }, { type: "run.completed", transcript });

  const restored = await restore(runner, inner);
  await until(() => !restored.busy);
  assert.equal(restored.snapshot().state.messages[1].content, "partial answer");
  assert.equal(restored.snapshot().state.status, "idle");
  assert.deepEqual(restored.transcript, transcript);
});

test("a steer sent before the crash that the run ended without reading goes on as the next prompt of the restored session", { timeout: 10_000 }, async () => {
  const { runner, run, inner } = await crashedMidRun("done", "q");
  run.emit({ type: "run.completed", unreadSteers: ["and then this"] });

  const restored = await restore(runner, inner);
  // The crashed session, still in memory, heard the end too: two queries, one each.
  const queries = [await runner.nextRun(), await runner.nextRun()];
  assert.deepEqual(queries.map((q) => q.body.prompt), ["and then this", "and then this"]);
  assert.deepEqual(restored.snapshot().state.messages.map((m) => [m.role, m.content]), [["user", "q"], ["assistant", "done"], ["user", "and then this"], ["assistant", ""]]);
  for (const query of queries) query.emit({ type: "run.completed" });
  await until(() => !restored.busy);
});

test("when the runner is gone the restored run is written down as interrupted", async () => {
  const { runner, inner } = await crashedMidRun("half", "q");
  runner.gone = true;
  const restored = await restore(runner, inner);
  await until(() => !restored.busy);
  const { state } = restored.snapshot();
  assert.equal(state.status, "error");
  assert.equal(state.error, INTERRUPTED_MESSAGE);
  assert.equal(state.messages[1].status, "cancelled");
  assert.deepEqual(restored.transcript, [{ role: "user", content: "q" }, { role: "assistant", content: "half" }]);
  const next = await submitAndRun(restored, recorder(), runner, "again");
  assert.equal(next.body.prompt, "again", "the session is usable again");
  next.emit({ type: "run.completed" });
  await until(() => !restored.busy);
});

test("pending approvals survive the crash and can be answered after it", async () => {
  const { inner, store, crash } = crashableStore();
  const { runner, session, client } = await startSession({ store });
  const run = await submitAndRun(session, client, runner);
  run.emit(
    { type: "run.started", requestId: "r1" },
    { type: "tool.started", toolName: "Bash", toolUseId: "t1" },
    { type: "approval.requested", toolUseId: "t1", toolName: "Bash", description: "rm -rf build" },
  );
  await until(() => client.state!.status === "awaiting-approval");
  await session.flush();
  crash();

  const restored = await restore(runner, inner);
  const back = recorder();
  restored.connect(back);
  assert.deepEqual(back.state!.pendingApprovals, [{ toolCallId: "t1", toolName: "Bash", description: "rm -rf build" }]);
  assert.equal(back.state!.status, "awaiting-approval");
  restored.receive(back, commandsFrame({ type: "approve", toolCallId: "t1" }));
  await until(() => runner.controls.length === 1);
  assert.deepEqual(runner.controls[0], { requestId: "r1", control: { type: "approve", toolUseId: "t1" } });
  run.emit({ type: "approval.resolved", toolUseId: "t1", behavior: "allow" }, { type: "tool.completed", toolUseId: "t1", output: "ok", isError: false }, { type: "run.completed" });
  await until(() => !restored.busy);
  assert.equal(back.state!.messages[1].toolCalls![0].status, "complete");
});

test("a broken event stream re-attaches to the run, which goes on", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "a" });
  await until(() => client.state!.messages[1].content === "a");
  run.fail(new Error("socket hang up"));
  await until(() => runner.attaches.length === 1);
  assert.deepEqual(runner.attaches[0], { requestId: "r1", afterSeq: 2 });
  run.emit({ type: "assistant.delta", text: "b" }, { type: "run.completed" });
  await until(() => !session.busy);
  assert.equal(client.state!.messages[1].content, "ab");
  assert.equal(client.state!.status, "idle");
});

test("a run the runner does not know (the query never reached it, or the runner is gone) is interrupted", async () => {
  const { inner, store, crash } = crashableStore();
  const { runner, session, client } = await startSession({ store });
  await submitAndRun(session, client, runner);
  await session.flush();
  crash();
  const restored = await restore(createFakeRunner(), inner);
  assert.equal(restored.snapshot().state.status, "error");
  assert.equal(restored.busy, false);
});

test("a long prompt is not stored again with every batch, and a run restored after a crash still has it", async () => {
  const { inner, store, crash } = crashableStore();
  const { runner, session, client } = await startSession({ store });
  const prompt = `Please look at this log:\n${"line of a long pasted log\n".repeat(4000)}`;
  const run = await submitAndRun(session, client, runner, prompt);
  run.emit({ type: "run.started", requestId: "r1" });
  const records: string[] = [];
  for (let i = 0; i < 5; i++) {
    run.emit({ type: "assistant.delta", text: `part ${i} ` });
    await until(() => client.state!.messages[1].content.endsWith(`part ${i} `));
    await session.flush();
    records.push(JSON.stringify(inner.run));
  }
  assert.ok(
    records.every((record) => record.length < 300),
    `the run record stored with each batch stays small (${records.map((r) => r.length).join(", ")} characters)`,
  );
  crash();
  runner.gone = true;
  const restored = await restore(runner, inner);
  await until(() => !restored.busy);
  assert.deepEqual(restored.transcript, [
    { role: "user", content: prompt },
    { role: "assistant", content: "part 0 part 1 part 2 part 3 part 4 " },
  ]);
});

test("a host that dies as the run starts, before run.started reached it, re-attaches by the id its query proposed", async () => {
  const { inner, store, crash } = crashableStore();
  const { runner, session, client } = await startSession({ store });
  const run = await submitAndRun(session, client, runner, "q");
  const proposed = run.body.requestId;
  assert.ok(proposed, "the query proposes the run's id");
  assert.equal(inner.run?.requestId, proposed, "the run record, id and all, was stored before the query went out");
  assert.equal(inner.snapshot?.state.messages[0].content, "q", "so was the prompt");
  crash();
  run.emit({ type: "run.started", requestId: proposed! }, { type: "assistant.delta", text: "unseen" });

  const restored = await restore(runner, inner);
  assert.deepEqual(runner.attaches, [{ requestId: proposed, afterSeq: 0 }]);
  run.emit({ type: "run.completed" });
  await until(() => !restored.busy);
  const { state } = restored.snapshot();
  assert.equal(state.messages[1].content, "unseen");
  assert.equal(state.messages[1].status, "complete");
});

test("a query cancelled before it went out never reaches the runner", async () => {
  const base = memoryStore();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const store: SessionStore = { load: () => base.load(), write: async (batches, snapshot, options) => (await gate, base.write(batches, snapshot, options)) };
  const { runner, session, client } = await startSession({ store });
  session.receive(client, commandsFrame({ type: "submit", prompt: "q" }));
  session.receive(client, commandsFrame({ type: "cancel" }));
  release();
  await session.flush();
  assert.equal(runner.runs.length, 0);
  assert.equal(client.state!.status, "idle");
  assert.equal(client.state!.messages[1].status, "cancelled");
});

test("what a re-attached run used until it was cancelled counts in the restored session's usage", async () => {
  const { runner, run, inner } = await crashedMidRun("a");
  const restored = await restore(runner, inner);
  const back = recorder();
  restored.connect(back);
  await until(() => run.readers() > 0 && runner.attaches.length === 1);
  restored.receive(back, commandsFrame({ type: "cancel" }));
  await until(() => back.state!.status === "idle" && run.cancelled);
  run.emit({ type: "run.error", message: "cancelled", usage: { inputTokens: 7, outputTokens: 3 } });
  await until(() => back.state!.usage?.inputTokens === 7);
  assert.deepEqual(back.state!.usage, { inputTokens: 7, outputTokens: 3 });
  assert.equal(back.state!.messages[1].status, "cancelled");
  await restored.close();
});

test("what a submit stores before its query goes out is one small write: the prompt's batch and the run record, not the state", async () => {
  const inner = memoryStore();
  const writes: { batches: number; snapshot: boolean; options: WriteOptions | undefined }[] = [];
  const store: SessionStore = {
    load: () => inner.load(),
    write(batches, snapshot, options) {
      writes.push({ batches: batches.length, snapshot: snapshot !== undefined, options });
      inner.write(batches, snapshot, options);
    },
  };
  const { runner, session, client } = await startSession({ store });
  const first = await submitAndRun(session, client, runner, "first");
  first.emit({ type: "run.started", requestId: first.requestId }, { type: "assistant.delta", text: "one" }, { type: "run.completed" });
  await until(() => !session.busy);
  await session.flush();
  // Batches of the session left waiting for the batched write go with the prompt's, in order.
  session.receive(client, commandsFrame({ type: "configure", config: { maxTurns: 3 } }));
  const from = writes.length;
  const second = await submitAndRun(session, client, runner, "second");
  assert.deepEqual(
    writes.slice(from).map((w) => ({ batches: w.batches, snapshot: w.snapshot, urgent: w.options?.urgent, run: w.options?.run?.requestId })),
    [{ batches: 2, snapshot: false, urgent: true, run: second.body.requestId }],
  );
  assert.equal(inner.batches.at(-1)!.seq, client.seq, "everything the client saw is stored");
});
