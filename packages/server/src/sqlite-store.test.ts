import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { SessionSnapshot, StoredBatch } from "@harness/session";
import { KEPT_BATCHES, openSqliteDatabase } from "./sqlite-store.ts";
import { tempDir, waitFor } from "./test-helpers.ts";

const batch = (seq: number, text = `t${seq}`): StoredBatch => ({
  seq,
  operations: JSON.stringify([{ type: "append-text", path: ["messages", "0", "content"], value: text }]),
});
const snapshot = (seq: number, content = ""): SessionSnapshot => ({
  state: { status: "idle", messages: [{ id: "m", role: "assistant", content, status: "complete" }], usage: { inputTokens: 1, outputTokens: 2 } },
  seq,
  transcript: [{ role: "user", content: "hi" }],
});

test("a session written and read back: snapshot plus the batches after it, per session", async () => {
  const dir = await tempDir();
  const path = join(dir.path, "sub", "harness.db");
  try {
    let db = openSqliteDatabase(path);
    const a = db.storeFor("u", "a");
    assert.equal(a.load(), undefined, "a session never written loads as undefined");
    await a.write([batch(1), batch(2)], snapshot(2, "t1t2"));
    await a.write([batch(3), batch(4)]);
    await db.storeFor("u", "b").write([batch(1)], snapshot(1));
    db.close();

    db = openSqliteDatabase(path);
    const loaded = db.storeFor("u", "a").load();
    assert.deepEqual(loaded, { snapshot: snapshot(2, "t1t2"), batches: [batch(3), batch(4)], clean: false });
    assert.deepEqual(db.storeFor("u", "a").readBatches!(1), [batch(2), batch(3), batch(4)]);
    assert.deepEqual(db.storeFor("u", "b").readBatches!(0), [batch(1)]);
    db.close();
  } finally {
    await dir.remove();
  }
});

test("a load is clean only after a final write, and marks the session open until the next one", async () => {
  const dir = await tempDir();
  try {
    const db = openSqliteDatabase(join(dir.path, "harness.db"));
    const store = db.storeFor("u", "c");
    await store.write([batch(1)], snapshot(1));
    assert.equal(store.load()!.clean, false, "never closed");
    await store.write([batch(2)], snapshot(2), { final: true });
    assert.equal(store.load()!.clean, true);
    assert.equal(store.load()!.clean, false, "loaded again without closing: the first holder may have died");
    await store.write([], undefined, { final: true });
    assert.equal(store.load()!.clean, true);
    db.close();
  } finally {
    await dir.remove();
  }
});

test("writes of many sessions in the same turn share one transaction", async () => {
  const dir = await tempDir();
  try {
    const db = openSqliteDatabase(join(dir.path, "harness.db"));
    const before = db.transactions();
    const writes = [];
    for (let i = 0; i < 50; i++) writes.push(db.storeFor("u", `s${i}`).write([batch(1), batch(2)], snapshot(2)));
    await Promise.all(writes);
    assert.equal(db.transactions() - before, 1);
    for (let i = 0; i < 50; i++) assert.equal(db.storeFor("u", `s${i}`).load()?.snapshot.seq, 2);
    db.close();
  } finally {
    await dir.remove();
  }
});

test("old batches are pruned beyond the kept window, never those after the snapshot", async () => {
  const dir = await tempDir();
  try {
    const db = openSqliteDatabase(join(dir.path, "harness.db"));
    const store = db.storeFor("u", "long");
    const total = KEPT_BATCHES + 600;
    const all = Array.from({ length: total }, (_, i) => batch(i + 1));
    await store.write(all.slice(0, 100), snapshot(100));
    await store.write(all.slice(100, total));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(store.readBatches!(0)[0].seq, 1, "nothing after the snapshot is pruned, however old");
    await store.write([], snapshot(total - 10));
    await waitFor(() => store.readBatches!(0)[0].seq > 1, "pruning");
    const kept = store.readBatches!(0);
    assert.equal(kept.length, KEPT_BATCHES);
    assert.equal(kept[0].seq, total - KEPT_BATCHES + 1);
    assert.equal(store.load()!.batches.length, 10, "the batches after the snapshot are all there");
    db.close();
  } finally {
    await dir.remove();
  }
});

test("a stored state that is not a valid HarnessState fails to load with a message naming it", async () => {
  const dir = await tempDir();
  const path = join(dir.path, "harness.db");
  try {
    const db = openSqliteDatabase(path);
    await db.storeFor("u", "bad").write([], snapshot(0));
    db.close();
    const raw = new DatabaseSync(path);
    raw.prepare("UPDATE sessions SET state = ? WHERE session_id = 'bad'").run(JSON.stringify({ status: "sleeping", messages: [] }));
    raw.close();
    const again = openSqliteDatabase(path);
    assert.throws(() => again.storeFor("u", "bad").load(), /stored state of session u\/bad is invalid: status/);
    again.close();
  } finally {
    await dir.remove();
  }
});

test("fields a newer version stored are kept on load", async () => {
  const dir = await tempDir();
  try {
    const db = openSqliteDatabase(join(dir.path, "harness.db"));
    const snap = snapshot(0);
    (snap.state as Record<string, unknown>).todos = [{ text: "later" }];
    await db.storeFor("u", "x").write([], snap);
    assert.deepEqual((db.storeFor("u", "x").load()!.snapshot.state as Record<string, unknown>).todos, [{ text: "later" }]);
    db.close();
  } finally {
    await dir.remove();
  }
});
