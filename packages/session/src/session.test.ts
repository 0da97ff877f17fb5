import { test } from "node:test";
import assert from "node:assert/strict";
import { createFakeRunner, type FakeRun } from "./fake-runner.ts";
import { INTERRUPTED_MESSAGE } from "./run-outcome.ts";
import { openSession, NOT_RUNNING, type SessionOptions } from "./session.ts";
import { memoryStore, type SessionStore, type StoredBatch } from "./store.ts";
import { commandsFrame, crashableStore, recorder, until } from "./test-helpers.ts";

async function setup(options: Partial<SessionOptions> = {}) {
  const runner = createFakeRunner();
  const store = options.store ?? memoryStore();
  const session = await openSession({ runner, store, onError: (e) => assert.fail(String(e)), ...options });
  const client = recorder();
  session.connect(client);
  return { runner, store, session, client };
}

async function submit(session: Awaited<ReturnType<typeof setup>>["session"], client: ReturnType<typeof recorder>, runner: ReturnType<typeof createFakeRunner>, prompt = "hi"): Promise<FakeRun> {
  session.receive(client, commandsFrame({ type: "submit", prompt }));
  return runner.nextRun();
}

test("a new client gets the state; a submit streams into an assistant message that ends complete and idle", async () => {
  const { runner, session, client } = await setup();
  assert.deepEqual(client.frames, [{ type: "state", state: { status: "idle", messages: [] }, seq: 0 }]);

  const run = await submit(session, client, runner, "say hello");
  assert.equal(client.state!.status, "running");
  assert.deepEqual(
    client.state!.messages.map((m) => [m.role, m.content, m.status]),
    [["user", "say hello", "complete"], ["assistant", "", "running"]],
  );
  assert.equal(run.body.prompt, "say hello");

  run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "Hel" });
  await until(() => client.state!.messages[1].content === "Hel");
  run.emit({ type: "assistant.delta", text: "lo" }, { type: "run.completed", usage: { inputTokens: 4, outputTokens: 2 } });
  await until(() => client.state!.status === "idle");
  assert.equal(client.state!.messages[1].content, "Hello");
  assert.equal(client.state!.messages[1].status, "complete");
  assert.deepEqual(client.state!.usage, { inputTokens: 4, outputTokens: 2 });
  assert.deepEqual(client.state, session.snapshot().state, "the client's copy equals the session's state");
  assert.equal(client.seq, session.snapshot().seq);
  assert.equal(session.busy, false);
});

test("text deltas that arrive together go out as one batch with one merged append", async () => {
  const { runner, session, client } = await setup();
  const run = await submit(session, client, runner);
  const before = client.frames.length;
  run.emit({ type: "assistant.delta", text: "a" }, { type: "assistant.delta", text: "b" }, { type: "assistant.delta", text: "c" });
  await until(() => client.state!.messages[1].content === "abc");
  const deltas = client.frames.slice(before);
  assert.deepEqual(deltas, [{ type: "delta", seq: client.seq, operations: [{ type: "append-text", path: ["messages", "1", "content"], value: "abc" }] }]);
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("every client gets the same batches; errors go only to the client that caused them", async () => {
  const { runner, session, client } = await setup();
  const other = recorder();
  session.connect(other);
  session.receive(client, "not json");
  assert.equal(client.errors.length, 1);
  assert.equal(other.errors.length, 0);
  const run = await submit(session, client, runner);
  run.emit({ type: "assistant.delta", text: "shared" }, { type: "run.completed" });
  await until(() => other.state!.status === "idle" && other.state!.messages.length === 2);
  assert.deepEqual(other.state, client.state);
});

test("bad frames and bad commands get error frames naming the problem; the state survives and later commands run", async () => {
  const { runner, session, client } = await setup();
  session.receive(client, "{oops");
  session.receive(client, JSON.stringify({ type: "hello" }));
  session.receive(client, commandsFrame({ type: "teleport" }, { type: "submit" }, { type: "submit", prompt: "works" }));
  session.receive(client, commandsFrame({ type: "submit", prompt: "x".repeat(1_100_000) }));
  // The last comes after the prompt's batch, which reaches clients once stored.
  await until(() => client.errors.length === 5);
  assert.deepEqual(
    client.errors.map((e) => [e.code, e.command]),
    [["bad_json", undefined], ["bad_frame", undefined], ["unknown_command", 0], ["bad_command", 1], ["frame_too_large", undefined]],
  );
  assert.match(client.errors[0].message, /not valid JSON/);
  assert.match(client.errors[2].message, /teleport/);
  assert.match(client.errors[3].message, /prompt/);
  const run = await runner.nextRun();
  assert.equal(run.body.prompt, "works", "the valid command in the same frame still ran");
  assert.equal(client.state!.messages[0].content, "works");
});

test("a submit while a run is in progress is refused as busy and changes nothing", async () => {
  const { runner, session, client } = await setup();
  const run = await submit(session, client, runner);
  const seq = client.seq;
  session.receive(client, commandsFrame({ type: "submit", prompt: "again" }));
  assert.equal(client.errors.at(-1)?.code, "busy");
  assert.equal(client.errors.at(-1)?.command, 0);
  assert.equal(client.seq, seq);
  assert.equal(runner.runs.length, 1);
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("cancel stops the run: the message is cancelled, running tool calls error with 'cancelled', the session idles", async () => {
  const { runner, session, client } = await setup();
  const run = await submit(session, client, runner, "long job");
  run.emit(
    { type: "assistant.delta", text: "Working" },
    { type: "tool.started", toolName: "Bash", toolUseId: "t1", input: { command: "sleep 100" } },
  );
  await until(() => client.state!.messages[1].toolCalls?.length === 1);
  session.receive(client, commandsFrame({ type: "cancel" }));
  const assistant = client.state!.messages[1];
  assert.equal(assistant.status, "cancelled");
  assert.equal(assistant.content, "Working");
  assert.deepEqual(assistant.toolCalls?.[0], { id: "t1", name: "Bash", status: "error", input: { command: "sleep 100" }, output: "cancelled", textOffset: "Working".length });
  assert.equal(client.state!.status, "idle");
  assert.equal(run.signal.aborted, true, "the runner request is aborted");
  await run.closed;

  // Late events of the cancelled run change nothing.
  const seq = client.seq;
  run.emit({ type: "assistant.delta", text: "late" });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(client.seq, seq);

  session.receive(client, commandsFrame({ type: "cancel" }));
  assert.equal(client.errors.at(-1)?.code, NOT_RUNNING);

  // The next run's model hears what this one did, the cancelled call included.
  const next = await submit(session, client, runner, "next");
  assert.deepEqual(next.body.history, [
    { role: "user", content: "long job" },
    { role: "assistant", content: [{ type: "text", text: "Working" }, { type: "tool_use", id: "t1", name: "Bash", input: { command: "sleep 100" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "cancelled", is_error: true }] },
    { role: "assistant", content: "[interrupted]" },
  ]);
  next.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("a runner failure ends the run in error with what happened, and the next submit works", async () => {
  const { runner, session, client } = await setup();
  const run = await submit(session, client, runner, "first");
  run.fail(new Error("connection refused"));
  await until(() => client.state!.status === "error");
  assert.equal(client.state!.messages[1].status, "error");
  assert.match(client.state!.error ?? "", /connection refused/);

  const second = await submit(session, client, runner, "second");
  assert.equal(client.state!.status, "running");
  assert.equal(client.state!.error, "", "a new run clears the error");
  assert.deepEqual(second.body.history, [
    { role: "user", content: "first" },
    { role: "assistant", content: "[interrupted]" },
  ]);
  second.end();
  await until(() => client.state!.status === "error");
  assert.match(client.state!.error ?? "", /ended before the run finished/);
  assert.equal(client.state!.messages[3].status, "error");
});

test("run.error from the runner shows its message", async () => {
  const { runner, session, client } = await setup();
  const run = await submit(session, client, runner);
  run.emit({ type: "run.error", message: "Invalid API key" });
  await until(() => client.state!.status === "error");
  assert.equal(client.state!.error, "Invalid API key");
  assert.equal(client.state!.messages[1].status, "error");
});

test("the transcript a run returns is sent as history by the next run; config is passed along", async () => {
  const transcript = [
    { role: "user" as const, content: "one" },
    { role: "assistant" as const, content: [{ type: "text", text: "first answer" }] },
  ];
  const store = memoryStore({
    snapshot: { state: { status: "idle", messages: [], config: { model: "claude-x", maxTurns: 3, systemPrompt: "be brief" } }, seq: 0, transcript: [] },
    batches: [],
    clean: true,
  });
  const { runner, session, client } = await setup({ store });
  const first = await submit(session, client, runner, "one");
  assert.deepEqual(first.body, {
    prompt: "one",
    history: [],
    userMessageId: client.state!.messages[0].id,
    interactive: true,
    model: "claude-x",
    maxTurns: 3,
    systemPrompt: "be brief",
    requestId: first.requestId,
  });
  first.emit({ type: "assistant.delta", text: "first answer" }, { type: "run.completed", transcript });
  await until(() => !session.busy);
  const second = await submit(session, client, runner, "two");
  assert.deepEqual(second.body.history, transcript);
  second.emit({ type: "assistant.delta", text: "second answer" }, { type: "run.completed" });
  await until(() => !session.busy);
  assert.deepEqual(session.transcript, [...transcript, { role: "user", content: "two" }, { role: "assistant", content: "second answer" }]);
});

test("a query names the transcript the runner kept while the session's is still that one", async () => {
  const { runner, session, client } = await setup();
  const transcript = [
    { role: "user" as const, content: "one" },
    { role: "assistant" as const, content: [{ type: "text", text: "first" }] },
  ];
  const first = await submit(session, client, runner, "one");
  assert.equal(first.body.historyId, undefined);
  first.emit({ type: "assistant.delta", text: "first" }, { type: "run.completed", transcript, transcriptId: "kept-1" });
  await until(() => !session.busy);
  const second = await submit(session, client, runner, "two");
  // The runner client sends the id in place of the history, and the history when the id is stale.
  assert.equal(second.body.historyId, "kept-1");
  assert.deepEqual(second.body.history, transcript);
  // A run that leaves no transcript: the session makes one up, which no runner keeps.
  second.emit({ type: "assistant.delta", text: "second" }, { type: "run.completed" });
  await until(() => !session.busy);
  const third = await submit(session, client, runner, "three");
  assert.equal(third.body.historyId, undefined);
  assert.equal(third.body.history?.length, 4);
  third.emit({ type: "run.completed", transcript: [...transcript, { role: "user", content: "three" }] });
  await until(() => !session.busy);
  const fourth = await submit(session, client, runner, "four");
  assert.equal(fourth.body.historyId, undefined, "a transcript without an id is sent whole");
});

async function sessionWithHistory(options: Partial<SessionOptions> = {}) {
  const s = await setup(options);
  const run = await submit(s.session, s.client, s.runner);
  for (let i = 0; i < 6; i++) {
    run.emit({ type: "assistant.delta", text: `w${i} ` });
    await until(() => s.client.state!.messages[1].content.endsWith(`w${i} `));
  }
  run.emit({ type: "run.completed" });
  await until(() => !s.session.busy);
  return s;
}

test("a client reconnecting with since gets exactly the batches it missed", async () => {
  const { session, client } = await sessionWithHistory();
  const deltas = client.frames.filter((f) => f.type === "delta");
  const since = deltas[2].seq;
  const back = recorder({ state: stateAt(client, since), seq: since });
  session.connect(back, since);
  assert.deepEqual(back.frames, deltas.slice(3));
  assert.deepEqual(back.state, client.state);

  const current = recorder({ state: client.state!, seq: client.seq });
  session.connect(current, client.seq);
  assert.deepEqual(current.frames, [], "a client that is up to date gets nothing");
});

test("a client whose since is too old, or ahead of the session, gets a state frame", async () => {
  const { session, client } = await sessionWithHistory({ logCapacity: 2, store: noReplayStore() });
  for (const since of [1, client.seq + 5]) {
    const back = recorder();
    session.connect(back, since);
    assert.equal(back.frames.length, 1);
    assert.equal(back.frames[0].type, "state");
    assert.deepEqual(back.state, client.state);
    assert.equal(back.seq, client.seq);
  }
});

test("batches older than the in-memory log are replayed from the store", async () => {
  const { session, client } = await sessionWithHistory({ logCapacity: 2 });
  await session.flush();
  const since = 1;
  const back = recorder({ state: stateAt(client, since), seq: since });
  session.connect(back, since);
  assert.ok(back.frames.every((f) => f.type === "delta"));
  assert.deepEqual(back.state, client.state);
});

test("storage is batched: batches committed while a write is in flight go out in one write", async () => {
  const base = memoryStore();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let writes = 0;
  const written: StoredBatch[] = [];
  const store: SessionStore = {
    load: () => base.load(),
    async write(batches, snapshot) {
      writes++;
      // The first write (the prompt, before the query goes out) passes; the next is held open.
      if (writes === 2) await gate;
      written.push(...batches);
      base.write(batches, snapshot);
    },
  };
  const { runner, session, client } = await setup({ store, flushDelayMs: 1 });
  const run = await submit(session, client, runner);
  run.emit({ type: "assistant.delta", text: "held," });
  await until(() => writes === 2);
  for (let i = 0; i < 20; i++) {
    run.emit({ type: "assistant.delta", text: `${i},` });
    await until(() => client.state!.messages[1].content.endsWith(`${i},`));
  }
  release();
  await session.flush();
  assert.equal(writes, 4, "the prompt, one write held open, one for the twenty batches behind it, one final snapshot");
  assert.deepEqual(written.map((b) => b.seq), Array.from({ length: client.seq }, (_, i) => i + 1));
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("a session closed and restored holds the same state, seq and transcript, and replays across the restart", async () => {
  const { session, client, store } = await sessionWithHistory();
  await session.close();
  const runner = createFakeRunner();
  const again = await openSession({ runner, store });
  assert.deepEqual(again.snapshot(), { state: client.state, seq: client.seq });
  assert.deepEqual(again.transcript, session.transcript);

  const back = recorder({ state: client.state!, seq: client.seq });
  again.connect(back, client.seq);
  again.receive(back, commandsFrame({ type: "submit", prompt: "more" }));
  // The prompt is shown once stored.
  await until(() => back.seq > client.seq);
  assert.equal(back.seq, client.seq + 1, "seq goes on where it was");
  const late = recorder({ state: stateAt(client, 2), seq: 2 });
  again.connect(late, 2);
  assert.ok(late.frames.every((f) => f.type === "delta"), "batches from before the restart are still replayed");
  assert.deepEqual(late.state, back.state);
  (await runner.nextRun()).emit({ type: "run.completed" });
  await until(() => !again.busy);
});

test("after a crash, seqs a client may have seen are never reused: a client that saw unstored batches gets a state frame", async () => {
  const { inner, store, crash } = crashableStore();
  const { runner, session, client } = await setup({ store, flushDelayMs: 60_000 });
  const run = await submit(session, client, runner);
  run.emit({ type: "assistant.delta", text: "stored" });
  await until(() => client.state!.messages[1].content === "stored");
  await session.flush();
  const storedSeq = client.seq;
  run.emit({ type: "assistant.delta", text: " lost" });
  await until(() => client.state!.messages[1].content === "stored lost");
  crash();

  const restored = await openSession({ runner: createFakeRunner(), store: inner });
  const { state, seq } = restored.snapshot();
  assert.equal(state.messages[1].content, "stored", "the unstored batch is gone");
  assert.ok(seq > client.seq, "seq moved past every seq sent before the crash");
  const lost = recorder({ state: client.state!, seq: client.seq });
  restored.connect(lost, client.seq);
  assert.deepEqual(lost.frames.map((f) => f.type), ["state"]);
  assert.deepEqual(lost.state, state);
  // One that saw only stored batches misses nothing it could not be sent: it gets deltas.
  const stored = recorder({ state: stateAt(client, storedSeq), seq: storedSeq });
  restored.connect(stored, storedSeq);
  assert.ok(stored.frames.length > 0 && stored.frames.every((f) => f.type === "delta"));
  assert.deepEqual(stored.state, state);
  assert.equal(stored.seq, seq);
  const older = recorder({ state: stateAt(client, 1), seq: 1 });
  restored.connect(older, 1);
  assert.ok(older.frames.every((f) => f.type === "delta"), "stored batches, then those after the jump");
  assert.deepEqual(older.state, state);
  // The jump itself is stored: a clean restart after it continues from there.
  await restored.close();
  const again = await openSession({ runner: createFakeRunner(), store: inner });
  assert.equal(again.snapshot().seq, seq);
  await session.close();
});

test("a prompt stored after a crash survives a second crash that comes before the session's next snapshot", async () => {
  const first = crashableStore();
  const { runner, session, client } = await setup({ store: first.store });
  (await submit(session, client, runner, "one")).emit({ type: "assistant.delta", text: "stored" }, { type: "run.completed" });
  await until(() => !session.busy);
  await session.flush();
  first.crash();

  // Restored from what the first host stored; it dies too before its timed write (a minute away).
  const second = crashableStore();
  Object.assign(second.inner, { snapshot: first.inner.snapshot, batches: first.inner.batches, clean: false });
  const restored = await openSession({ runner, store: second.store, flushDelayMs: 60_000 });
  const back = recorder();
  restored.connect(back);
  restored.receive(back, commandsFrame({ type: "submit", prompt: "two" }));
  // A client sees the prompt only once it is stored.
  await until(() => back.state!.messages.length === 4, "the prompt shown");
  second.crash();

  const third = await openSession({ runner: createFakeRunner(), store: second.inner });
  assert.deepEqual(
    third.snapshot().state.messages.map((m) => [m.role, m.content]),
    [["user", "one"], ["assistant", "stored"], ["user", "two"], ["assistant", ""]],
    "what the second host stored is there",
  );
  await third.close();
  await session.close();
});

test("a session restored mid-run is marked interrupted, never running forever", async () => {
  const { runner, session, client, store } = await setup();
  const run = await submit(session, client, runner, "build it");
  run.emit({ type: "assistant.delta", text: "Starting" }, { type: "tool.started", toolName: "Bash", toolUseId: "t1" });
  await until(() => client.state!.messages[1].toolCalls?.length === 1);
  // The host dies here: whatever reached the store is all there is.
  await session.flush();

  const restored = await openSession({ runner: createFakeRunner(), store });
  const { state, seq } = restored.snapshot();
  assert.equal(state.status, "error");
  assert.equal(state.error, INTERRUPTED_MESSAGE);
  assert.equal(state.messages[1].status, "cancelled");
  assert.equal(state.messages[1].content, "Starting");
  assert.equal(state.messages[1].toolCalls?.[0].status, "error");
  assert.deepEqual(restored.transcript, [
    { role: "user", content: "build it" },
    { role: "assistant", content: [{ type: "text", text: "Starting" }, { type: "tool_use", id: "t1", name: "Bash", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "interrupted", is_error: true }] },
    { role: "assistant", content: "[interrupted]" },
  ]);

  // A client that saw the run is brought up to date; everything it saw was stored, so by deltas.
  const back = recorder({ state: client.state!, seq: client.seq });
  restored.connect(back, client.seq);
  assert.deepEqual(back.state, state);
  assert.equal(back.seq, seq);
});

test("closing a session with a run in progress stores it as interrupted", async () => {
  const { runner, session, client, store } = await setup();
  const run = await submit(session, client, runner);
  run.emit({ type: "assistant.delta", text: "partial" });
  await until(() => client.state!.messages[1].content === "partial");
  await session.close();
  assert.equal(run.signal.aborted, true);
  const restored = await openSession({ runner: createFakeRunner(), store });
  assert.equal(restored.snapshot().state.status, "error");
  assert.equal(restored.snapshot().state.messages[1].status, "cancelled");
});

function noReplayStore(): SessionStore {
  const inner = memoryStore();
  return { load: () => inner.load(), write: (b, s) => inner.write(b, s) };
}

/** What a client held at `seq`, rebuilt from the frames `client` saw. */
function stateAt(client: ReturnType<typeof recorder>, seq: number) {
  const replay = recorder();
  for (const frame of client.frames) {
    if (frame.type === "error") continue;
    if (frame.seq > seq) break;
    replay.send(JSON.stringify(frame));
  }
  assert.equal(replay.seq, seq);
  return replay.state!;
}

test("a snapshot keeps the stored transcript and adds only what runs added to it; a failed write sends it whole next time", async () => {
  const base = memoryStore();
  const snapshots: { kept?: number; length: number }[] = [];
  let failNext = false;
  const store: SessionStore = {
    load: () => base.load(),
    write(batches, snapshot, options) {
      if (failNext) {
        failNext = false;
        throw new Error("disk full");
      }
      if (snapshot) snapshots.push({ kept: options?.transcriptKept, length: snapshot.transcript.length });
      base.write(batches, snapshot, options);
    },
  };
  const errors: string[] = [];
  const { runner, session, client } = await setup({ store, onError: (e) => errors.push(String(e)) });
  const turn = (prompt: string, answer: string) => [
    { role: "user" as const, content: prompt },
    { role: "assistant" as const, content: [{ type: "text", text: answer }] },
  ];
  const first = await submit(session, client, runner, "one");
  first.emit({ type: "assistant.delta", text: "1" }, { type: "run.completed", transcript: turn("one", "1") });
  await until(() => !session.busy);
  await session.flush();
  snapshots.length = 0;

  // The next run starts: its snapshot has the transcript the last one stored.
  const second = await submit(session, client, runner, "two");
  await session.flush();
  assert.deepEqual(snapshots, [{ kept: 2, length: 2 }]);
  assert.deepEqual(base.snapshot?.transcript, turn("one", "1"));

  // A write that fails: the next snapshot carries the transcript whole.
  failNext = true;
  second.emit({ type: "assistant.delta", text: "2" });
  await until(() => client.state!.messages[3].content === "2");
  await session.flush().catch(() => {});
  assert.match(errors.join("\n"), /disk full/);
  snapshots.length = 0;
  await session.flush();
  assert.deepEqual(snapshots, [{ kept: undefined, length: 2 }]);
  snapshots.length = 0;

  // The run ends with the transcript it was given and two messages more: only those are added.
  second.emit({ type: "run.completed", transcript: [...session.transcript, ...turn("two", "2")] });
  await until(() => !session.busy);
  await session.flush();
  assert.deepEqual(snapshots, [{ kept: 2, length: 4 }]);
  await session.close();
  const restored = await openSession({ runner: createFakeRunner(), store: base });
  assert.deepEqual(restored.transcript, [...turn("one", "1"), ...turn("two", "2")]);
  assert.deepEqual(restored.snapshot().state.messages.map((m) => m.content), ["one", "1", "two", "2"]);
});

test("a session restored from the store does not write its transcript again before it changes", async () => {
  const { session, store } = await sessionWithHistory();
  await session.close();
  const snapshots: (number | undefined)[] = [];
  const watching: SessionStore = {
    load: () => store.load(),
    write(batches, snapshot, options) {
      if (snapshot) snapshots.push(options?.transcriptKept);
      store.write(batches, snapshot, options);
    },
  };
  const runner = createFakeRunner();
  const again = await openSession({ runner, store: watching });
  const client = recorder();
  again.connect(client);
  again.receive(client, commandsFrame({ type: "submit", prompt: "more" }));
  const run = await runner.nextRun();
  await again.flush();
  assert.deepEqual(snapshots, [2], "the run's first snapshot keeps the stored transcript");
  run.emit({ type: "run.completed" });
  await until(() => !again.busy);
});

test("the write that holds a query back carries the prompt and the run record, not the whole state; the snapshot follows", async () => {
  const base = memoryStore();
  const writes: { snapshot: boolean; run?: string; batches: number }[] = [];
  const store: SessionStore = {
    load: () => base.load(),
    write(batches, snapshot, options) {
      writes.push({ snapshot: snapshot !== undefined, batches: batches.length, ...(options?.run && { run: options.run.requestId }) });
      return base.write(batches, snapshot, options);
    },
  };
  const { runner, session, client } = await setup({ store });
  const first = await submit(session, client, runner, "one");
  first.emit({ type: "run.completed" });
  await until(() => !session.busy);
  await session.flush();
  writes.length = 0;
  const second = await submit(session, client, runner, "two");
  assert.deepEqual(writes, [{ snapshot: false, batches: 1, run: second.requestId }], "stored before the query went out");
  await until(() => writes.some((w) => w.snapshot));
  second.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("a submitted prompt reaches clients only once the store has it; a client that connects meanwhile gets it once, after", async () => {
  const held = Promise.withResolvers<void>();
  const inner = memoryStore();
  const writes: string[] = [];
  const store: SessionStore = {
    ...inner,
    async write(batches, snapshot, options) {
      if (options?.urgent) await held.promise;
      await inner.write(batches, snapshot, options);
      writes.push(batches.map((b) => b.operations).join());
    },
  };
  const { runner, session, client } = await setup({ store });
  session.receive(client, commandsFrame({ type: "submit", prompt: "keep me" }));
  const seen = client.seq;
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(!JSON.stringify(client.state).includes("keep me"), "not shown before it is stored");
  const late = recorder();
  session.connect(late);
  assert.equal(late.frames.length, 0, "a client connecting meanwhile is caught up once it is stored");
  held.resolve();
  await until(() => client.seq > seen && late.frames.length > 0);
  assert.ok(writes.some((w) => w.includes("keep me")), "stored first");
  assert.equal(client.state!.messages[0].content, "keep me");
  assert.deepEqual(late.state, client.state);
  assert.equal(late.seq, client.seq);
  (await runner.nextRun()).emit({ type: "run.completed" });
  await until(() => !session.busy);
});
