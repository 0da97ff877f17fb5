// How the persister hands a growing transcript to the store: the additions only, and now and then
// the whole of it again.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { TranscriptMessage } from "@harness/protocol";
import { createPersister } from "./persister.ts";
import { memoryStore, type LoadedSession, type SessionSnapshot, type WriteOptions } from "./store.ts";

test("each write adds only the messages after the stored ones; after a hundred additions, or a transcript cut short, it goes whole", async () => {
  const base = memoryStore();
  const kept: (number | undefined)[] = [];
  let transcript: TranscriptMessage[] = [];
  let seq = 0;
  const persister = createPersister({
    store: {
      load: () => base.load(),
      write(batches, snapshot?: SessionSnapshot, options?: WriteOptions) {
        if (snapshot) kept.push(options?.transcriptKept);
        base.write(batches, snapshot, options);
      },
    },
    snapshot: () => ({ state: { status: "idle", messages: [] }, seq, transcript }),
    snapshotSeq: -1,
    snapshotEvery: 500,
    snapshotBytes: 1 << 20,
    flushDelayMs: 1,
    onError: (error) => assert.fail(String(error)),
  });
  const run = async (n: number) => {
    transcript = transcript.concat({ role: "user", content: `p${n}` }, { role: "assistant", content: `r${n}` });
    persister.add({ seq: ++seq, operations: "[]" });
    await persister.flush();
  };
  for (let n = 0; n < 101; n++) await run(n);
  assert.equal(kept[0], undefined, "the first write has it whole");
  assert.deepEqual(kept.slice(1), Array.from({ length: 100 }, (_, n) => 2 * (n + 1)));
  await run(101);
  assert.equal(kept[101], undefined, "after a hundred additions it is written whole again");
  await run(102);
  assert.equal(kept[102], 204);
  // A rewind cuts the transcript: the next write has it whole.
  transcript = transcript.slice(0, 10);
  persister.add({ seq: ++seq, operations: "[]" });
  await persister.flush();
  assert.equal(kept[103], undefined);
  assert.deepEqual(base.snapshot?.transcript, transcript);
});

test("a changed transcript goes without the state, which is snapshotted after enough batches or bytes and when the session closes", async () => {
  const base = memoryStore();
  const writes: { stateKept: boolean; seq?: number }[] = [];
  let seq = 0;
  let state = { status: "idle" as const, messages: [] as { id: string; role: "user"; content: string; status: "complete" }[] };
  let transcript: TranscriptMessage[] = [];
  const persister = createPersister({
    store: {
      load: () => base.load(),
      write(batches, snapshot?: SessionSnapshot, options?: WriteOptions) {
        if (snapshot) writes.push({ stateKept: options?.stateKept === true, seq: snapshot.seq });
        base.write(batches, snapshot, options);
      },
    },
    snapshot: () => ({ state, seq, transcript, marks: { [`m${seq}`]: transcript.length } }),
    snapshotSeq: -1,
    snapshotEvery: 10,
    snapshotBytes: 2000,
    flushDelayMs: 1,
    onError: (error) => assert.fail(String(error)),
  });
  const batch = (content: string) => {
    state = { ...state, messages: [...state.messages, { id: `u${seq + 1}`, role: "user", content, status: "complete" }] };
    persister.add({ seq: ++seq, operations: JSON.stringify([{ type: "set", path: ["messages", String(seq - 1)], value: state.messages.at(-1) }]) });
  };
  const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
  batch("first");
  await settle();
  assert.deepEqual(writes, [{ stateKept: false, seq: 1 }], "the first write holds the state");
  // A run ends: the transcript grows, the state is not written again.
  batch("second");
  transcript = [{ role: "user", content: "second" }];
  persister.conversationChanged();
  await settle();
  assert.deepEqual(writes.at(-1), { stateKept: true, seq: 2 });
  assert.equal(base.snapshot?.seq, 1, "the stored state is still the first one");
  assert.deepEqual(base.snapshot?.transcript, transcript);
  assert.deepEqual(base.snapshot?.marks, { m2: 1 });
  assert.deepEqual(base.batches.map((b) => b.seq), [1, 2]);
  // Loading replays the batches after the stored state.
  assert.deepEqual((base.load() as LoadedSession).batches.map((b) => b.seq), [2]);
  // Ten batches since the state's snapshot: the next write holds the state.
  for (let i = 0; i < 8; i++) batch(`short ${i}`);
  await settle();
  assert.equal(writes.length, 2, "eight small batches and no change to the transcript: no snapshot");
  batch("tenth");
  await settle();
  assert.deepEqual(writes.at(-1), { stateKept: false, seq: 11 });
  assert.equal(base.snapshot?.seq, 11);
  // Two thousand bytes of batches since the snapshot do the same, however few they are.
  batch("x".repeat(1000));
  await settle();
  assert.equal(writes.length, 3);
  batch("y".repeat(1000));
  await settle();
  assert.deepEqual(writes.at(-1), { stateKept: false, seq: 13 });
  // Closing snapshots whatever happened since.
  batch("last");
  await persister.flush("final");
  assert.deepEqual(writes.at(-1), { stateKept: false, seq: 14 });
  assert.deepEqual(base.snapshot?.state, state);
  assert.equal(base.clean, true);
});

test("a write tells the store when its last batch was made, not when the write happens", async () => {
  const base = memoryStore();
  const told: (number | undefined)[] = [];
  const persister = createPersister({
    store: {
      load: () => base.load(),
      write(batches, snapshot?: SessionSnapshot, options?: WriteOptions) {
        told.push(options?.changedAt);
        base.write(batches, snapshot, options);
      },
    },
    snapshot: () => ({ state: { status: "idle", messages: [] }, seq: 2, transcript: [] }),
    snapshotSeq: -1,
    snapshotEvery: 500,
    snapshotBytes: 1 << 20,
    flushDelayMs: 40,
    onError: (error) => assert.fail(String(error)),
  });
  persister.add({ seq: 1, operations: "[]" });
  const lastMade = Date.now();
  persister.add({ seq: 2, operations: "[]" });
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(told.length, 1);
  assert.ok(told[0] !== undefined && told[0] >= lastMade && told[0] < lastMade + 20, `told ${told[0]}, the batch made at ${lastMade}`);
  persister.setRun(null);
  await persister.flush();
  assert.equal(told.at(-1), undefined, "a write without batches tells no change");
});
