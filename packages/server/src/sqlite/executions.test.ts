import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { openDatabaseFile } from "./schema.ts";
import { createExecutionStore, KEEP_ENDED_MS, MAX_KEPT_PER_USER, type ExecutionRow } from "./executions.ts";
import { testDir } from "../test-helpers.ts";

const row = (id: string, userId: string, startedAt: number, endedAt?: number): ExecutionRow => ({
  id,
  userId,
  sessionId: "s",
  startedAt,
  ...(endedAt !== undefined && { endedAt }),
  status: endedAt === undefined ? "running" : "completed",
  record: JSON.stringify({ id }),
});

test("an ended execution is kept an hour after it ended, one under way for as long as it runs; another user's is not theirs", async (t) => {
  const db = openDatabaseFile(join(await testDir(t), "harness.db"));
  t.after(() => db.close());
  let now = 1_000_000;
  const store = createExecutionStore(db, () => now);
  store.put(row("ended", "ann", now, now + 10));
  store.put(row("running", "ann", now + 1));
  now += 10 + KEEP_ENDED_MS;
  assert.deepEqual(store.list("ann").map((r) => r.id), ["running", "ended"]);
  assert.equal(store.get("bob", "ended"), undefined);
  now += 1;
  assert.equal(store.get("ann", "ended"), undefined, "past its hour");
  assert.deepEqual(store.list("ann").map((r) => r.id), ["running"]);
  assert.deepEqual(store.unended().map((r) => r.id), ["running"]);
  store.put({ ...row("running", "ann", 1_000_001, now), record: "{}" });
  assert.deepEqual(store.get("ann", "running"), { ...row("running", "ann", 1_000_001, now), record: "{}" });
  assert.deepEqual(store.list("ann"), [{ id: "running", userId: "ann", sessionId: "s", startedAt: 1_000_001, endedAt: now, status: "completed" }], "listed without records");
  assert.deepEqual(store.unended(), []);
  const left = db.prepare("SELECT execution_id FROM executions").all().map((r) => r.execution_id);
  assert.deepEqual(left, ["running"], "the expired row is gone from the file");
});

test("a user keeps at most MAX_KEPT_PER_USER executions: the oldest ended go first, those under way and other users' stay", async (t) => {
  const db = openDatabaseFile(join(await testDir(t), "harness.db"));
  t.after(() => db.close());
  const now = 5_000_000;
  const store = createExecutionStore(db, () => now);
  store.put(row("under-way", "ann", now - 5000));
  store.put(row("bobs", "bob", now - 4000, now - 4000));
  for (let i = 0; i < MAX_KEPT_PER_USER; i++) store.put(row(`e${i}`, "ann", now - 3000 + i, now - 3000 + i));
  const kept = store.list("ann").map((r) => r.id);
  assert.equal(kept.length, MAX_KEPT_PER_USER);
  assert.ok(kept.includes("under-way"));
  assert.ok(!kept.includes("e0"), "the oldest ended went");
  assert.ok(kept.includes("e1"));
  assert.deepEqual(store.list("bob").map((r) => r.id), ["bobs"]);
});

test("a row whose times do not read (a damaged file) is neither listed nor got, and goes at its user's next write; the others stay", async (t) => {
  const db = openDatabaseFile(join(await testDir(t), "harness.db"));
  t.after(() => db.close());
  const now = 5_000_000;
  const store = createExecutionStore(db, () => now);
  for (const id of ["good", "text-start", "huge-end", "real-start"]) store.put(row(id, "ann", now - 10, now - 5));
  db.prepare("UPDATE executions SET started_at = 'garbage' WHERE execution_id = 'text-start'").run();
  db.prepare("UPDATE executions SET ended_at = 1e300 WHERE execution_id = 'huge-end'").run();
  db.prepare("UPDATE executions SET started_at = 1.5 WHERE execution_id = 'real-start'").run();
  const listed = store.list("ann");
  assert.deepEqual(listed.map((r) => r.id), ["good"]);
  assert.equal(store.get("ann", "text-start"), undefined);
  assert.equal(store.get("ann", "huge-end"), undefined);
  store.put(row("next", "ann", now, now));
  const left = db.prepare("SELECT execution_id FROM executions ORDER BY execution_id").all().map((r) => r.execution_id);
  assert.deepEqual(left, ["good", "next"]);
});

test("an execution past its hour leaves the file at the next write of anyone's, not only of its user's", async (t) => {
  const db = openDatabaseFile(join(await testDir(t), "harness.db"));
  t.after(() => db.close());
  let now = 5_000_000;
  const store = createExecutionStore(db, () => now);
  store.put(row("anns", "ann", now - 10, now - 5));
  now += KEEP_ENDED_MS;
  store.put(row("bobs", "bob", now, now));
  const left = db.prepare("SELECT execution_id FROM executions").all().map((r) => r.execution_id);
  assert.deepEqual(left, ["bobs"]);
  const plan = db.prepare("EXPLAIN QUERY PLAN DELETE FROM executions WHERE ended_at < 0").all().map((r) => r.detail);
  assert.match(plan.join(" "), /USING .*INDEX/, "found by an index, not a scan of every row");
});
