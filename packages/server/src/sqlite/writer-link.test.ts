import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { pathToFileURL } from "node:url";
import { openDatabaseFile } from "./schema.ts";
import { createWriterLink } from "./writer-link.ts";
import type { WriteOp } from "./writer.ts";
import { lockFile, tempDir } from "../test-helpers.ts";

const op = (sessionId: string, seq: number): WriteOp => ({
  userId: "u",
  sessionId,
  batches: [{ seq, operations: JSON.stringify([{ type: "set", path: ["status"], value: "idle" }]) }],
  final: false,
});

test("a writer thread that dies fails the writes it held, with a message; the next write starts a new thread and is stored", async () => {
  const dir = await tempDir();
  try {
    const path = join(dir.path, "harness.db");
    openDatabaseFile(path).close();
    // The first thread dies as it starts (as a crashed one would, with writes in flight); the
    // threads after it are the real writer.
    const crashed = join(dir.path, "crashed");
    const script = join(dir.path, "dying-writer.mjs");
    writeFileSync(
      script,
      `import { existsSync, writeFileSync } from "node:fs";
       if (!existsSync(${JSON.stringify(crashed)})) { writeFileSync(${JSON.stringify(crashed)}, ""); process.exit(3); }
       await import(${JSON.stringify(new URL("./writer.ts", import.meta.url).href)});`,
    );
    const errors: string[] = [];
    const link = createWriterLink({ path, keptBatches: 100, keptBytes: 1 << 20, delayMs: 5, waitMs: 10_000, script: pathToFileURL(script), onError: (e) => errors.push(String(e)) });

    const lost = link.enqueue("u\0a", op("a", 1));
    await assert.rejects(lost, /the session database's writer thread stopped: it exited with code 3/);
    link.settle("u\0a");
    assert.equal(errors.length, 1, errors.join("\n"));

    await link.enqueue("u\0b", op("b", 1));
    link.close();
    const db = new DatabaseSync(path);
    const rows = db.prepare("SELECT session_id, seq FROM deltas ORDER BY session_id").all();
    db.close();
    assert.deepEqual(rows.map((r) => ({ ...r })), [{ session_id: "b", seq: 1 }]);
  } finally {
    await dir.remove();
  }
});

test("an urgent write is committed without waiting out the delay, with the writes queued before it in one transaction", async () => {
  const dir = await tempDir();
  try {
    const path = join(dir.path, "harness.db");
    openDatabaseFile(path).close();
    // A delay no test waits out: only an urgent write can be committed.
    const link = createWriterLink({ path, keptBatches: 100, keptBytes: 1 << 20, delayMs: 60_000, waitMs: 10_000 });
    const before = link.enqueue("u\0a", op("a", 1));
    await link.enqueue("u\0b", op("b", 1), true);
    await before;
    assert.equal(link.transactions(), 1);
    link.close();
  } finally {
    await dir.remove();
  }
});

test("a writer thread first started while another process holds the file's lock fails the write at once; the write is stored once the lock is gone", async () => {
  const dir = await tempDir();
  try {
    const path = join(dir.path, "harness.db");
    openDatabaseFile(path).close();
    const lock = lockFile(path);
    const link = createWriterLink({ path, keptBatches: 100, keptBytes: 1 << 20, delayMs: 5, waitMs: 10_000 });
    const refused = link.enqueue("u\0a", op("a", 1));
    const started = performance.now();
    assert.equal(link.settle("u\0a"), false, "settle says the write was not stored");
    assert.ok(performance.now() - started < 3000, `settle returned after ${Math.round(performance.now() - started)} ms`);
    await assert.rejects(refused, /locked by another process/);
    lock.release();

    await link.enqueue("u\0a", op("a", 1));
    assert.equal(link.settle("u\0a"), true);
    link.close();
    const db = new DatabaseSync(path);
    const rows = db.prepare("SELECT session_id, seq FROM deltas").all();
    db.close();
    assert.deepEqual(rows.map((r) => ({ ...r })), [{ session_id: "a", seq: 1 }]);
  } finally {
    await dir.remove();
  }
});

test("a writer thread that cannot open the file fails at once every write sent to it, not only the first", async () => {
  const dir = await tempDir();
  try {
    // A directory: no connection opens it.
    const link = createWriterLink({ path: dir.path, keptBatches: 100, keptBytes: 1 << 20, delayMs: 5, waitMs: 5000, onError: () => {} });
    const first = link.enqueue("u\0a", op("a", 1), true);
    await new Promise((resolve) => setImmediate(resolve));
    // Sent while the thread is still starting.
    const second = link.enqueue("u\0b", op("b", 1), true);
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    assert.equal(link.settle("u\0b"), false, "settle says the write was not stored");
    assert.ok(performance.now() - started < 2000, `settle returned after ${Math.round(performance.now() - started)} ms`);
    await assert.rejects(first, /cannot open the session database/);
    await assert.rejects(second, /cannot open the session database|writer thread stopped/);
    link.close();
  } finally {
    await dir.remove();
  }
});
