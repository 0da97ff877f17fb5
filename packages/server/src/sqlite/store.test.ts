import { test } from "node:test";
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { SEQ_JUMP_AFTER_CRASH, type SessionSnapshot, type StoredBatch } from "@harness/session";
import { KEPT_BATCHES, openSqliteDatabase } from "./store.ts";
import { DELETED_KEPT_MS } from "./open-mark.ts";
import { lockFile, testDir, waitFor } from "../test-helpers.ts";

const batch = (seq: number, text = `t${seq}`): StoredBatch => ({
  seq,
  operations: JSON.stringify([{ type: "append-text", path: ["messages", "0", "content"], value: text }]),
});
const snapshot = (seq: number, content = ""): SessionSnapshot => ({
  state: { status: "idle", messages: [{ id: "m", role: "assistant", content, status: "complete" }], usage: { inputTokens: 1, outputTokens: 2 } },
  seq,
  transcript: [{ role: "user", content: "hi" }],
});

test("a session written and read back: snapshot plus the batches after it, per session", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "sub", "harness.db");
  let db = openSqliteDatabase(path);
  const a = db.storeFor("u", "a");
  assert.equal(a.load(), undefined, "a session never written loads as undefined");
  await a.write([batch(1), batch(2)], snapshot(2, "t1t2"));
  await a.write([batch(3), batch(4)]);
  await db.storeFor("u", "b").write([batch(1)], snapshot(1));
  db.close();

  db = openSqliteDatabase(path);
  const loaded = db.storeFor("u", "a").load();
  assert.deepEqual(loaded, { snapshot: { ...snapshot(2, "t1t2"), marks: {} }, batches: [batch(3), batch(4)], clean: false });
  assert.deepEqual(db.storeFor("u", "a").readBatches!(1), [batch(2), batch(3), batch(4)]);
  assert.deepEqual(db.storeFor("u", "b").readBatches!(0), [batch(1)]);
  db.close();
});

test("after a server died with the file open, sessions the file does not hold start past every seq an unstored one can have sent", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "harness.db");
  const died = openSqliteDatabase(path);
  assert.equal(died.storeFor("u", "a").unstoredSeq(), 0, "a new file: sessions start at 0");
  // A second server opens the file the first never closed: it died.
  const next = openSqliteDatabase(path);
  assert.equal(next.storeFor("u", "a").unstoredSeq(), SEQ_JUMP_AFTER_CRASH);
  assert.ok(next.catalog.create("u", "made", {}));
  assert.equal(next.readSession("u", "made")!.snapshot.seq, SEQ_JUMP_AFTER_CRASH + 1, "sessions made through the catalog too");
  next.close();
  // Closed cleanly: the next server keeps the raised start and raises it no further.
  const after = openSqliteDatabase(path);
  assert.equal(after.storeFor("u", "b").unstoredSeq(), SEQ_JUMP_AFTER_CRASH);
  after.close();
  died.close();
});

test("a load is clean only after a final write, and marks the session open until the next one", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const store = db.storeFor("u", "c");
  await store.write([batch(1)], snapshot(1));
  const first = store.load()!;
  assert.equal(first.clean, false, "never closed");
  // A session loaded not clean numbers on past the jump: its first write is a snapshot there.
  const from = 1 + (first.seqJump ?? SEQ_JUMP_AFTER_CRASH);
  await store.write([], snapshot(from));
  await store.write([batch(from + 1)], undefined, { final: true });
  assert.equal(store.load()!.clean, true);
  const again = store.load()!;
  assert.equal(again.clean, false, "loaded again without closing: the first holder may have died");
  const next = from + 1 + (again.seqJump ?? SEQ_JUMP_AFTER_CRASH);
  await store.write([], snapshot(next), { final: true });
  assert.equal(store.load()!.clean, true);
  db.close();
});

test("writes of many sessions in the same turn share one transaction", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const before = db.transactions();
  const writes = [];
  for (let i = 0; i < 50; i++) writes.push(db.storeFor("u", `s${i}`).write([batch(1), batch(2)], snapshot(2)));
  await Promise.all(writes);
  assert.equal(db.transactions() - before, 1);
  for (let i = 0; i < 50; i++) assert.equal(db.storeFor("u", `s${i}`).load()?.snapshot.seq, 2);
  db.close();
});

test("old batches are pruned beyond the kept window, never those after the snapshot", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const store = db.storeFor("u", "long");
  const total = KEPT_BATCHES + 600;
  const all = Array.from({ length: total }, (_, i) => batch(i + 1));
  await store.write(all.slice(0, 100), snapshot(100));
  await store.write(all.slice(100, total));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(store.readBatches(0)![0].seq, 1, "nothing after the snapshot is pruned, however old");
  await store.write([], snapshot(total - 10));
  await waitFor(() => store.readBatches(0)![0].seq > 1, "pruning");
  const kept = store.readBatches(0)!;
  assert.equal(kept.length, KEPT_BATCHES);
  assert.equal(kept[0].seq, total - KEPT_BATCHES + 1);
  assert.equal(store.load()!.batches.length, 10, "the batches after the snapshot are all there");
  db.close();
});

test("a stored state that is not a valid HarnessState fails to load with a message naming it", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "harness.db");
  const db = openSqliteDatabase(path);
  await db.storeFor("u", "bad").write([], snapshot(0));
  db.close();
  const raw = new DatabaseSync(path);
  raw.prepare("UPDATE sessions SET state = ? WHERE session_id = 'bad'").run(JSON.stringify({ status: "sleeping", messages: [] }));
  raw.close();
  const again = openSqliteDatabase(path);
  assert.throws(() => again.storeFor("u", "bad").load(), /stored state of session u\/bad is invalid: status/);
  again.close();
});

test("fields a newer version stored are kept on load", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const snap = snapshot(0);
  (snap.state as Record<string, unknown>).todos = [{ text: "later" }];
  await db.storeFor("u", "x").write([], snap);
  assert.deepEqual((db.storeFor("u", "x").load()!.snapshot.state as Record<string, unknown>).todos, [{ text: "later" }]);
  db.close();
});

test("the run record and the marks are stored with the batches, and cleared with null; a record from an earlier version, with the prompt in it, loads too", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const store = db.storeFor("u", "r");
  const run = { requestId: "req-1", lastEventSeq: 7, userMessageId: "m1", assistantMessageId: "m2", afterTool: true };
  await store.write([batch(1)], { ...snapshot(1), marks: { m1: 0 } }, { run });
  assert.deepEqual(store.load()!.run, run);
  assert.deepEqual(store.load()!.snapshot.marks, { m1: 0 });
  assert.deepEqual(db.sessionsWithRun(), [{ userId: "u", sessionId: "r" }]);
  await store.write([batch(2)], undefined, { run: { ...run, lastEventSeq: 9, prompt: "p" } });
  assert.deepEqual(store.load()!.run, { ...run, lastEventSeq: 9, prompt: "p" });
  // What the run's reported calls counted, by call id, so that one reported again counts once.
  const live = { usageBefore: { inputTokens: 5, outputTokens: 1 }, counted: { inputTokens: 300, outputTokens: 1 }, calls: { msg_s: { inputTokens: 300, outputTokens: 1 } } };
  await store.write([batch(3)], undefined, { run: { ...run, lastEventSeq: 10, live } });
  assert.deepEqual(store.load()!.run, { ...run, lastEventSeq: 10, live });
  await store.write([], undefined, { run: null });
  assert.equal(store.load()!.run, undefined);
  assert.deepEqual(db.sessionsWithRun(), []);
  db.close();

  // Marks an earlier version kept in the session row load until the session's next ones are written.
  const raw = new DatabaseSync(join(dir, "harness.db"));
  raw.prepare(`UPDATE sessions SET marks = '{"old":3}' WHERE session_id = 'r'`).run();
  raw.prepare("DELETE FROM session_marks").run();
  raw.close();
  const reopened = openSqliteDatabase(join(dir, "harness.db"));
  const again = reopened.storeFor("u", "r");
  assert.deepEqual(again.load()!.snapshot.marks, { old: 3 });
  await again.write([batch(3)], { ...snapshot(3), marks: { old: 3, m3: 1 } }, { stateKept: true });
  assert.deepEqual(again.load()!.snapshot.marks, { old: 3, m3: 1 });
  reopened.close();
});

test("reading a session for a copy does not mark it open", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const store = db.storeFor("u", "c");
  await store.write([batch(1)], snapshot(1), { final: true });
  assert.equal(db.readSession("u", "c")!.clean, true);
  assert.equal(db.readSession("u", "c")!.clean, true);
  assert.equal(store.load()!.clean, true);
  assert.equal(db.readSession("u", "nope"), undefined);
  db.close();
});

test("the catalog lists a user's sessions newest first, with titles from the first prompt unless named", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const long = "Please   refactor the parser\nso that it handles every edge case we talked about yesterday afternoon";
  await db.storeFor("u", "old").write([], {
    state: { status: "idle", messages: [{ id: "1", role: "user", content: long, status: "complete" }, { id: "2", role: "assistant", content: "ok", status: "complete" }] },
    seq: 0,
    transcript: [],
  });
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(db.catalog.create("u", "named", { title: "My session" }), true);
  assert.equal(db.catalog.create("u", "named", {}), false, "an id is created once");
  db.catalog.create("v", "theirs", {});
  const list = db.catalog.list("u");
  assert.deepEqual(list.map((s) => [s.sessionId, s.title, s.status, s.messageCount]), [
    ["named", "My session", "idle", 0],
    ["old", "Please refactor the parser so that it handles every edge cas", "idle", 2],
  ]);
  assert.equal(list[1].title!.length, 60);
  assert.match(list[0].createdAt, /^\d{4}-\d\d-\d\dT/);
  assert.equal(db.catalog.rename("u", "old", "Parser"), true);
  assert.equal(db.catalog.rename("v", "old", "x"), false, "another user's session is not found");
  assert.equal(db.catalog.list("u").find((s) => s.sessionId === "old")?.title, "Parser");
  db.close();
});

test("a stored session opened with built-in commands is listed by its first prompt that reached the model, or untitled", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const message = (id: string, role: "user" | "assistant", content: string) => ({ id, role, content, status: "complete" as const });
  const stored = (id: string, messages: ReturnType<typeof message>[]) => db.storeFor("u", id).write([], { state: { status: "idle", messages }, seq: 0, transcript: [] });
  await stored("help-first", [message("1", "user", "/help"), message("2", "assistant", "…"), message("3", "user", "/cost"), message("4", "assistant", "…"), message("5", "user", "Fix the login bug"), message("6", "assistant", "ok")]);
  await stored("only-commands", [message("1", "user", "/status"), message("2", "assistant", "…")]);
  await stored("custom", [message("1", "user", "/deploy staging"), message("2", "assistant", "…")]);
  const titles = Object.fromEntries(db.catalog.list("u").map((s) => [s.sessionId, s.title]));
  assert.deepEqual(titles, { "help-first": "Fix the login bug", "only-commands": null, custom: "/deploy staging" });
  db.close();
});

test("the catalog ranks sessions by their last change: closing one cleanly, or storing its state whole, does not move it up", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const tick = () => new Promise((r) => setTimeout(r, 5));
  const older = db.storeFor("u", "older");
  const newer = db.storeFor("u", "newer");
  await older.write([batch(1)], snapshot(1));
  await tick();
  await newer.write([batch(1)], snapshot(1));
  await tick();
  // The older session's client went away after the newer one's run: its close stores nothing new
  // but the end of its run record.
  await older.write([], undefined, { run: null });
  await tick();
  await older.write([], undefined, { final: true });
  await tick();
  await older.write([], snapshot(1), { final: true });
  const order = () => db.catalog.list("u").map((s) => s.sessionId);
  assert.deepEqual(order(), ["newer", "older"]);
  const updated = db.catalog.list("u").find((s) => s.sessionId === "older")!.updatedAt;
  await tick();
  await older.write([batch(2)]);
  assert.deepEqual(order(), ["older", "newer"], "a new batch is a change");
  assert.ok(db.catalog.list("u")[0].updatedAt > updated);
  await tick();
  assert.equal(db.catalog.rename("u", "newer", "Renamed"), true);
  assert.deepEqual(order(), ["newer", "older"], "so is a new title");
  // Batches stored late (their write waited) count from when they were made.
  const made = Date.now();
  await tick();
  await newer.write([batch(2)]);
  await tick();
  await older.write([batch(3)], undefined, { changedAt: made });
  assert.deepEqual(order(), ["newer", "older"], "batches made before the other session's count from when they were made");
  assert.equal(db.catalog.list("u")[1].updatedAt, new Date(made).toISOString());
  db.close();
});

test("deleting a session removes its rows after the writes queued before it", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const store = db.storeFor("u", "gone");
  await store.write([batch(1)], snapshot(1));
  db.catalog.setRunner("u", "gone", { pid: 123, url: "http://127.0.0.1:1" });
  const late = store.write([batch(2)]);
  const removed = db.deleteSession("u", "gone");
  await Promise.all([late, removed]);
  assert.equal(store.load(), undefined);
  assert.deepEqual(store.readBatches(0)!, []);
  assert.equal(db.catalog.runnerOf("u", "gone"), undefined);
  db.close();
});

test("a read sees the writes queued before it, even before they are committed", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const store = db.storeFor("u", "quick");
  const written = store.write([batch(1), batch(2)], snapshot(1));
  const loaded = store.load();
  assert.equal(db.writerWaits(), 1, "the load waited for the write");
  assert.equal(loaded?.snapshot.seq, 1);
  assert.deepEqual(loaded?.batches.map((b) => b.seq), [2]);
  void store.write([batch(3)]);
  assert.deepEqual(store.readBatches(2)!.map((b) => b.seq), [3]);
  await written;
  db.close();
});

test("a read of batches does not wait for the writes on their way while another process takes the file's lock, and has their batches", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "harness.db");
  const db = openSqliteDatabase(path, { onError: () => {} });
  t.after(() => db.close());
  const store = db.storeFor("u", "s");
  await store.write([batch(1), batch(2)], snapshot(1));
  const lock = lockFile(path);
  const refused = Promise.resolve(store.write([batch(3)], undefined, { urgent: true }));
  // The writer thread takes the write and waits for the lock.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const waits = db.writerWaits();
  const read = store.readBatches(1);
  assert.equal(db.writerWaits(), waits, "the read blocked for the writer thread");
  await assert.rejects(refused, /locked by another process/);
  lock.release();
  assert.deepEqual(read!.map((b) => b.seq), [2, 3]);
});

test("a write the database refuses fails alone, with the database's message; the others and later writes are stored", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "harness.db");
  const db = openSqliteDatabase(path);
  const raw = new DatabaseSync(path);
  raw.exec(`CREATE TRIGGER refuse BEFORE INSERT ON deltas WHEN NEW.session_id = 'bad' BEGIN SELECT RAISE(ABORT, 'disk says no'); END;`);
  raw.close();
  const good = db.storeFor("u", "good").write([batch(1)], snapshot(1));
  const bad = Promise.resolve(db.storeFor("u", "bad").write([batch(1)], snapshot(0)));
  await assert.rejects(bad, /storing session u\/bad failed: disk says no/);
  await good;
  assert.equal(db.storeFor("u", "good").load()?.snapshot.seq, 1);
  assert.equal(db.storeFor("u", "bad").load(), undefined, "nothing of the refused write is stored, not even its snapshot");
  await db.storeFor("u", "good").write([batch(2)]);
  assert.deepEqual(db.storeFor("u", "good").readBatches(0)!.map((b) => b.seq), [1, 2]);
  db.close();
});

test("commits happen off the server's thread: a slow transaction does not hold up its timers", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "harness.db");
  const db = openSqliteDatabase(path);
  // A trigger that makes every insert of this session cost a lot of work inside the transaction.
  const raw = new DatabaseSync(path);
  raw.exec(`CREATE TRIGGER slow AFTER INSERT ON deltas WHEN NEW.session_id = 'slow' BEGIN
    SELECT count(*) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000000) SELECT i FROM n); END;`);
  raw.close();
  const store = db.storeFor("u", "slow");
  const started = performance.now();
  const written = store.write([batch(1)], snapshot(1));
  let ticks = 0;
  let longest = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    ticks++;
  }, 5);
  await written;
  clearInterval(timer);
  const took = performance.now() - started;
  assert.ok(took > 100, `the transaction took ${took.toFixed(0)} ms: too quick to show anything`);
  assert.ok(longest < took / 2, `a timer waited ${longest.toFixed(0)} ms of a ${took.toFixed(0)} ms transaction`);
  assert.ok(ticks >= 5);
  db.close();
});

test("a runner's record keeps its token; a file of a version without tokens gains the column; the file is its owner's only", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "harness.db");
  const old = new DatabaseSync(path);
  old.exec("CREATE TABLE runners (user_id TEXT NOT NULL, session_id TEXT NOT NULL, pid INTEGER NOT NULL, url TEXT NOT NULL, PRIMARY KEY (user_id, session_id)) WITHOUT ROWID");
  old.exec("INSERT INTO runners VALUES ('u', 'before', 41, 'http://127.0.0.1:1/workspaces/a')");
  old.close();

  const db = openSqliteDatabase(path);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.deepEqual(db.catalog.runnerOf("u", "before"), { pid: 41, url: "http://127.0.0.1:1/workspaces/a" }, "a record from before tokens reads without one");
  db.catalog.setRunner("u", "s", { pid: 42, url: "http://127.0.0.1:2/workspaces/b", token: "t0k" });
  assert.deepEqual(db.catalog.runnerOf("u", "s"), { pid: 42, url: "http://127.0.0.1:2/workspaces/b", token: "t0k" });
  db.catalog.setRunner("u", "s", { pid: 43, url: "http://127.0.0.1:3/workspaces/b" });
  assert.deepEqual(db.catalog.runnerOf("u", "s"), { pid: 43, url: "http://127.0.0.1:3/workspaces/b" }, "a new record replaces the token too");
  db.close();
});

test("a snapshot keeps the stored transcript and adds only the messages after it; a whole one replaces them all; without one stored, the write fails alone", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const store = db.storeFor("u", "s");
  await store.write([batch(1)], snapshot(1));
  const hi = { role: "user" as const, content: "hi" };
  const later = { ...snapshot(2, "later"), transcript: [{ role: "user" as const, content: "not stored" }] };
  await store.write([batch(2)], later, { transcriptKept: 1 });
  const loaded = store.load()!;
  assert.equal(loaded.snapshot.seq, 2);
  assert.equal(loaded.snapshot.state.messages[0].content, "later");
  assert.deepEqual(loaded.snapshot.transcript, [hi]);

  // Two runs add to it; the second run's write follows a first that was rolled back in part
  // (its messages from position 1 are replaced).
  const reply = (text: string) => ({ role: "assistant" as const, content: [{ type: "text", text }] });
  await store.write([batch(3)], { ...snapshot(3), transcript: [hi, reply("one")] }, { transcriptKept: 1 });
  await store.write([batch(4)], { ...snapshot(4), transcript: [hi, reply("one"), hi, reply("two")] }, { transcriptKept: 2 });
  await store.write([batch(5)], { ...snapshot(5), transcript: [hi, reply("uno")] }, { transcriptKept: 1 });
  assert.deepEqual(store.load()!.snapshot.transcript, [hi, reply("uno")]);
  await store.write([batch(6)], { ...snapshot(6), transcript: [hi, reply("uno"), hi, reply("dos")] }, { transcriptKept: 2 });
  assert.deepEqual(store.load()!.snapshot.transcript, [hi, reply("uno"), hi, reply("dos")]);
  assert.deepEqual(db.readSession("u", "s")?.snapshot.transcript, [hi, reply("uno"), hi, reply("dos")]);
  await store.write([batch(7)], { ...snapshot(7), transcript: [reply("rewound")] });
  assert.deepEqual(store.load()!.snapshot.transcript, [reply("rewound")]);
  await store.write([batch(8)], { ...snapshot(8), transcript: [reply("rewound"), hi] }, { transcriptKept: 1 });
  db.close();

  // A tail that does not follow what is stored is reported, naming the session.
  const raw = new DatabaseSync(join(dir, "harness.db"));
  raw.prepare("UPDATE transcript_tails SET position = 5 WHERE user_id = 'u' AND session_id = 's'").run();
  raw.close();
  const reopened = openSqliteDatabase(join(dir, "harness.db"));
  assert.throws(() => reopened.storeFor("u", "s").load(), /stored transcript of session u\/s is broken: messages stored from position 5 follow 1 messages/);
  reopened.close();
});

test("a snapshot that would keep a transcript never stored fails alone", async (t) => {
  const dir = await testDir(t);
  const db = openSqliteDatabase(join(dir, "harness.db"));
  const store = db.storeFor("u", "s");
  await store.write([batch(1)], snapshot(1));
  await store.write([batch(2)]);
  const other = db.storeFor("u", "new");
  await assert.rejects(Promise.resolve(other.write([batch(1)], snapshot(1), { transcriptKept: 1 })), /storing session u\/new failed: the session has no stored transcript to keep/);
  assert.equal(other.load(), undefined, "nothing of the refused write is stored");
  await store.write([batch(3)]);
  assert.deepEqual(store.readBatches(0)!.map((b) => b.seq), [1, 2, 3]);
  db.close();
});

test("deleting a session gives its space back: the file shrinks", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "harness.db");
  // All of its batches kept, however many bytes: this is about deleting, not pruning.
  let db = openSqliteDatabase(path, { keptBatchBytes: Infinity });
  const big = "x".repeat(4000);
  await db.storeFor("u", "keep").write([batch(1)], snapshot(1));
  const store = db.storeFor("u", "gone");
  for (let seq = 1; seq <= 2000; seq += 100) {
    await store.write(Array.from({ length: 100 }, (_, k) => batch(seq + k, big)), snapshot(seq + 99, big));
  }
  db.close();
  const full = statSync(path).size;
  assert.ok(full > 8_000_000, `the session takes room (${full} bytes)`);

  db = openSqliteDatabase(path);
  await db.deleteSession("u", "gone");
  db.close();
  const after = statSync(path).size;
  assert.ok(after < full / 10, `the file shrank from ${full} to ${after} bytes`);
  db = openSqliteDatabase(path);
  assert.ok(db.storeFor("u", "keep").load(), "the other session is still there");
  db.close();
});

test("a write that keeps the state stores the transcript and marks alone: a load replays the batches since the stored state, and pruning spares them", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "harness.db");
  const db = openSqliteDatabase(path);
  const store = db.storeFor("u", "s");
  await store.write([batch(1)], snapshot(1, "one"));
  const hi = { role: "user" as const, content: "hi" };
  const reply = { role: "assistant" as const, content: [{ type: "text", text: "hello" }] };
  const later = Array.from({ length: KEPT_BATCHES + 600 }, (_, i) => batch(i + 2));
  // A run ended: its batches, and a snapshot whose state is not to be written.
  await store.write(later, { ...snapshot(later.length + 1, "never stored"), transcript: [hi, reply], marks: { m: 1 } }, { stateKept: true, transcriptKept: 1 });
  // A rewind: the transcript whole and shorter, the state still kept.
  await store.write([], { ...snapshot(later.length + 1, "never stored"), transcript: [reply], marks: {} }, { stateKept: true });
  db.close();

  const reopened = openSqliteDatabase(path);
  const loaded = reopened.storeFor("u", "s").load()!;
  assert.equal(loaded.snapshot.seq, 1, "the state stored is the first one");
  assert.equal(loaded.snapshot.state.messages[0].content, "one");
  assert.deepEqual(loaded.snapshot.transcript, [reply]);
  assert.deepEqual(loaded.snapshot.marks, {});
  assert.equal(loaded.batches.length, later.length, "every batch after the stored state is kept to replay");
  assert.equal(loaded.batches.at(-1)?.seq, later.length + 1);
  // Kept the state of a session never stored: refused, naming what is missing.
  await assert.rejects(
    Promise.resolve(reopened.storeFor("u", "new").write([batch(1)], snapshot(1), { stateKept: true })),
    /storing session u\/new failed: the session has no stored state to keep/,
  );
  reopened.close();
});

test("deleted sessions are remembered for a while, then forgotten without a later session of the id numbering its batches from below what they reached", async (t) => {
  const dir = await testDir(t);
  const path = join(dir, "harness.db");
  let db = openSqliteDatabase(path);
  await db.storeFor("u", "old").write([batch(1), batch(2)], snapshot(7));
  await db.storeFor("u", "recent").write([batch(1)], snapshot(3));
  await db.deleteSession("u", "old");
  await db.deleteSession("u", "recent");
  db.close();
  // "old" was deleted long ago; "recent" within the time deleted ids are kept.
  const raw = new DatabaseSync(path);
  raw.prepare("UPDATE deleted_sessions SET deleted_at = ? WHERE session_id = 'old'").run(Date.now() - DELETED_KEPT_MS - 1000);
  raw.close();

  db = openSqliteDatabase(path);
  t.after(() => db.close());
  assert.equal(db.catalog.deletedSeq("u", "recent"), 3, "a recently deleted id is known (its clients are told it was deleted)");
  assert.equal(db.catalog.deletedSeq("u", "old"), 0, "one deleted long ago is forgotten");
  const raw2 = new DatabaseSync(path);
  assert.deepEqual(raw2.prepare("SELECT session_id FROM deleted_sessions").all().map((r) => r.session_id), ["recent"]);
  raw2.close();
  // Yet no session starts at or below a seq the forgotten one reached: a client that kept it gets a state.
  assert.ok(db.storeFor("u", "old").unstoredSeq() >= 7);
  assert.ok(db.storeFor("u", "other").unstoredSeq() >= 7);
});
