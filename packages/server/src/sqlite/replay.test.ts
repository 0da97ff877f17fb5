// The stored batches a reconnecting client may be replayed: read no further than the replay budget,
// and kept no longer than a replay could use them (the batches a load needs excepted).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { SessionSnapshot, StoredBatch } from "@harness/session";
import { join } from "node:path";
import { openSqliteDatabase } from "./store.ts";
import { testDir, waitFor } from "../test-helpers.ts";

const batch = (seq: number, size: number): StoredBatch => ({ seq, operations: JSON.stringify([{ type: "set", path: ["config", "systemPrompt"], value: "x".repeat(size) }]) });
const snapshot = (seq: number): SessionSnapshot => ({ state: { status: "idle", messages: [], usage: { inputTokens: 0, outputTokens: 0 } }, seq, transcript: [] });
const sizeOf = (batches: readonly StoredBatch[]) => batches.reduce((sum, b) => sum + b.operations.length, 0);

test("stored batches are read up to a byte budget: past it the read gives up and says so", async (t) => {
  const db = openSqliteDatabase(join(await testDir(t), "harness.db"));
  const store = db.storeFor("u", "s");
  const all = Array.from({ length: 20 }, (_, i) => batch(i + 1, 1_000));
  await store.write(all, snapshot(20));
  assert.deepEqual(store.readBatches(15, sizeOf(all.slice(15))), all.slice(15), "exactly the budget");
  assert.equal(store.readBatches(14, sizeOf(all.slice(15))), undefined, "one batch over it");
  assert.deepEqual(store.readBatches(0), all, "no budget: all of them");
  db.close();
});

test("batches past the kept bytes are pruned, never those after the snapshot", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"), { keptBatchBytes: 20_000 });
  const store = db.storeFor("u", "s");
  // 200 batches of about 1 KB, each write with a snapshot: all but the last could go.
  for (let seq = 1; seq <= 200; seq += 10) {
    await store.write(Array.from({ length: 10 }, (_, k) => batch(seq + k, 1_000)), snapshot(seq + 9));
  }
  await waitFor(() => store.readBatches(0)![0].seq > 150, "pruning by bytes");
  const kept = store.readBatches(0)!;
  assert.ok(sizeOf(kept) <= 20_000, `kept ${sizeOf(kept)} bytes`);
  assert.ok(sizeOf(kept) > 20_000 - 2_100, "no fewer than the bytes kept allow, give or take a batch");
  assert.equal(kept.at(-1)!.seq, 200);

  // Without a snapshot after them, large batches are all kept: loading the session needs them.
  await store.write(Array.from({ length: 40 }, (_, k) => batch(201 + k, 1_000)));
  await store.write([batch(241, 1_000)]);
  assert.equal(store.load()!.batches.length, 41);
  assert.equal(store.load()!.snapshot.seq, 200);
  db.close();
});
