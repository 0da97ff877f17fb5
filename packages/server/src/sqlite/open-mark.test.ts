import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { SEQ_JUMP_AFTER_CRASH, type SessionSnapshot } from "@harness/session";
import { openSqliteDatabase } from "./store.ts";
import { lockFile, testDir } from "../test-helpers.ts";

const snapshot = (seq: number): SessionSnapshot => ({
  state: { status: "idle", messages: [], usage: { inputTokens: 0, outputTokens: 0 } },
  seq,
  transcript: [],
});

/** A file whose session u/s was closed cleanly at change 3. */
async function closedSession(t: TestContext) {
  const path = join(await testDir(t), "harness.db");
  const db = openSqliteDatabase(path, { onError: () => {} });
  t.after(() => db.close());
  const store = db.storeFor("u", "s");
  await store.write([], snapshot(3), { final: true });
  return { path, db, store };
}

test("a session closed cleanly and loaded while another process holds the file's lock loads as not clean, and its next write marks it open", async (t) => {
  const { path, db, store } = await closedSession(t);
  const lock = lockFile(path);
  const loaded = store.load()!;
  lock.release();
  assert.equal(loaded.clean, false, "the row could not be marked open");
  assert.equal(loaded.seqJump, undefined, "no server died: the usual jump");
  await store.write([], snapshot(3 + SEQ_JUMP_AFTER_CRASH));
  assert.equal(db.readSession("u", "s")!.clean, false);
});

test("after a server died, a row it may have reopened is not taken for closed cleanly, and every later death numbers further on", async (t) => {
  const path = join(await testDir(t), "harness.db");
  const first = openSqliteDatabase(path);
  await first.storeFor("u", "s").write([], snapshot(3), { final: true });
  first.close();
  // Each of these "dies": it never closes the file before the next opens it.
  const died = openSqliteDatabase(path);
  const second = openSqliteDatabase(path);
  const third = openSqliteDatabase(path);
  t.after(() => [died, second, third].forEach((db) => db.close()));
  const fromSecond = second.readSession("u", "s")!;
  assert.equal(fromSecond.clean, false, "the dead server may have sent batches it never stored");
  assert.equal(fromSecond.seqJump, SEQ_JUMP_AFTER_CRASH * 2);
  const fromThird = third.storeFor("u", "s").load()!;
  assert.ok(fromThird.seqJump! >= fromSecond.seqJump! + SEQ_JUMP_AFTER_CRASH, `${fromThird.seqJump} is past what the second server could send`);
  // Closed cleanly by this server: clean again.
  await third.storeFor("u", "s").write([], snapshot(3 + fromThird.seqJump!), { final: true });
  assert.equal(third.storeFor("u", "s").load()!.clean, true);
});

test("a file closed with writes it could not store stays marked open: the next server numbers on as after a death", async (t) => {
  const path = join(await testDir(t), "harness.db");
  const errors: string[] = [];
  const db = openSqliteDatabase(path, { onError: (error) => errors.push((error as Error).message) });
  const store = db.storeFor("u", "s");
  await store.write([], snapshot(0));
  const lock = lockFile(path);
  await assert.rejects(Promise.resolve(store.write([{ seq: 1, operations: "[]" }], undefined, { final: true })), /locked by another process/);
  const lines: string[] = [];
  const levels: (string | undefined)[] = [];
  assert.equal(await db.storeUnsaved(300, (line, detail) => (lines.push(line), levels.push(detail?.level))), false);
  assert.match(lines.at(-1)!, /^not stored: session u\/s: change 1, that it was closed \(storing session u\/s failed: the session database is locked by another process .*\)$/);
  assert.deepEqual(levels, ["warn", "error"], "waiting a warning, changes lost an error: a log kept to warnings shows both");
  lock.release();
  db.close();
  assert.match(errors.at(-1)!, /left marked open/);

  const next = openSqliteDatabase(path);
  t.after(() => next.close());
  assert.equal(next.storeFor("u", "new").unstoredSeq(), SEQ_JUMP_AFTER_CRASH);
  assert.equal(next.readSession("u", "s")!.snapshot.seq, 0);
});

test("a server stopped after a write failed for another cause than the lock does not wait for the lock, and logs that cause", async (t) => {
  const path = join(await testDir(t), "harness.db");
  const db = openSqliteDatabase(path, { onError: () => {} });
  t.after(() => db.close());
  const raw = new DatabaseSync(path);
  raw.exec(`CREATE TRIGGER refuse BEFORE INSERT ON deltas BEGIN SELECT RAISE(ABORT, 'disk says no'); END;`);
  raw.close();
  const store = db.storeFor("u", "s");
  await assert.rejects(Promise.resolve(store.write([{ seq: 1, operations: "[]" }], snapshot(1), { final: true })), /disk says no/);
  const lines: string[] = [];
  // Given a minute to wait: a server that waited would return long after these 30 s.
  const started = performance.now();
  assert.equal(await db.storeUnsaved(60_000, (line) => lines.push(line)), false);
  assert.ok(performance.now() - started < 30_000, `returned after ${Math.round(performance.now() - started)} ms`);
  assert.equal(lines.length, 1, lines.join("\n"));
  assert.match(lines[0]!, /^not stored: session u\/s: change 1, its state as of change 1, its conversation, that it was closed \(storing session u\/s failed: disk says no\)$/);
});

test("a session loaded again while another process still holds the file's lock numbers on past the first load's numbers, and past them again once the lock is gone", async (t) => {
  const { path, db, store } = await closedSession(t);
  const lock = lockFile(path);
  // The first load's session sends batches from 3 + its jump, none of them stored, and is closed.
  const first = store.load()!;
  const second = store.load()!;
  lock.release();
  const firstFrom = 3 + (first.seqJump ?? SEQ_JUMP_AFTER_CRASH);
  const secondFrom = 3 + (second.seqJump ?? SEQ_JUMP_AFTER_CRASH);
  assert.equal(second.clean, false);
  assert.ok(secondFrom >= firstFrom + SEQ_JUMP_AFTER_CRASH, `the second load numbers from ${secondFrom}, among the first's numbers (from ${firstFrom})`);
  // The lock is gone: the row still says closed cleanly at 3, but holds nothing of those two.
  const third = store.load()!;
  assert.equal(third.clean, false, "the row holds nothing of what the sessions loaded before sent");
  assert.ok(3 + third.seqJump! >= secondFrom + SEQ_JUMP_AFTER_CRASH, `the third load numbers from ${3 + third.seqJump!}`);
});

test("renaming a session after a server died does not make its row taken for closed cleanly again", async (t) => {
  const path = join(await testDir(t), "harness.db");
  const first = openSqliteDatabase(path);
  await first.storeFor("u", "s").write([], snapshot(3), { final: true });
  first.close();
  const died = openSqliteDatabase(path);
  const next = openSqliteDatabase(path);
  t.after(() => [died, next].forEach((db) => db.close()));
  assert.ok(next.catalog.rename("u", "s", "a new name"));
  const loaded = next.storeFor("u", "s").load()!;
  assert.equal(loaded.clean, false, "the server that died may have sent batches it never stored");
  assert.equal(loaded.seqJump, SEQ_JUMP_AFTER_CRASH * 2);
});

test("a file from a version that trusted rows by time keeps, per row, what that time said of it", async (t) => {
  const path = join(await testDir(t), "harness.db");
  const made = openSqliteDatabase(path);
  await made.storeFor("u", "after").write([], snapshot(3), { final: true });
  await made.storeFor("u", "before").write([], snapshot(3), { final: true });
  made.close();
  // As that version left it: no openings counted, a death noticed at time 1000.
  const raw = new DatabaseSync(path);
  raw.exec(`ALTER TABLE sessions DROP COLUMN closed_by; ALTER TABLE open_mark DROP COLUMN opened; ALTER TABLE open_mark DROP COLUMN trusted_from;
            UPDATE open_mark SET suspect_before = 1000; UPDATE sessions SET updated_at = CASE session_id WHEN 'after' THEN 2000 ELSE 500 END`);
  raw.close();
  const db = openSqliteDatabase(path);
  t.after(() => db.close());
  assert.equal(db.readSession("u", "after")!.clean, true);
  assert.equal(db.readSession("u", "before")!.clean, false, "closed cleanly before the death it noticed");
});
