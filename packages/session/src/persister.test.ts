// How the persister hands a growing transcript to the store: the additions only, and now and then
// the whole of it again.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { TranscriptMessage } from "@harness/protocol";
import { createPersister } from "./persister.ts";
import { memoryStore, type SessionSnapshot, type WriteOptions } from "./store.ts";

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
