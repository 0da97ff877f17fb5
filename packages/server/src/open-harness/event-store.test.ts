import { test } from "node:test";
import assert from "node:assert/strict";
import { comesAfter, eventsOf, placeOf } from "./event-feed.ts";
import { join } from "node:path";
import { createFeedRows, memoryFeedDatabase, type FeedRows } from "../sqlite/feed-events.ts";
import { openDatabaseFile } from "../sqlite/schema.ts";
import { testDir } from "../test-helpers.ts";
import { createEventStore } from "./event-store.ts";

test("a user's events are kept for a while and at most the most recent of a bounded number, each user's apart", () => {
  let now = Date.parse("2026-01-01T00:00:00.000Z");
  const store = createEventStore({ now: () => now, keepMs: 60_000, maxPerUser: 3 });
  for (const id of ["a", "b", "c", "d"]) {
    store.record("alice", "session.created", { session_id: id });
    now += 1000;
  }
  store.record("bob", "skill.installed", { skill_id: "deploy" });
  assert.deepEqual(store.list("alice").map((event) => event.data.session_id), ["b", "c", "d"], "the oldest went past the bound");
  assert.deepEqual(store.list("bob").map((event) => event.type), ["skill.installed"]);
  now += 58_500;
  assert.deepEqual(store.list("alice").map((event) => event.data.session_id), ["d"], "those past their hour are gone");
  now += 120_000;
  assert.deepEqual(store.list("alice"), []);
  store.record("carol", "error", { code: "run_failed", message: "no" });
  assert.equal(store.users(), 1, "users with nothing kept are let go");
});

test("events recorded in the same millisecond keep their order, and come after an execution event already told", () => {
  const now = Date.parse("2026-01-01T00:00:00.000Z");
  const store = createEventStore({ now: () => now });
  const first = store.record("alice", "session.created", { session_id: "s1" });
  const second = store.record("alice", "skill.installed", { skill_id: "x" });
  assert.ok(comesAfter(second.id, placeOf(first.id)!));
  assert.equal(first.timestamp, "2026-01-01T00:00:00.000Z");
  store.sawExecutionEvent("alice", now);
  const third = store.record("alice", "error", { code: "run_failed", message: "no" });
  assert.ok(comesAfter(third.id, placeOf(`${now}-completed-zzz`)!), "after the execution's end told before it");
  assert.equal(third.timestamp, "2026-01-01T00:00:00.001Z");
  // Merged with executions' events, the feed's order is the order they were recorded in.
  const merged = eventsOf([], [third, first, second]);
  assert.deepEqual(merged.map((event) => event.id), [first.id, second.id, third.id]);
});

test("every listener is told each event as it is recorded, one that throws included", () => {
  const store = createEventStore();
  const told: string[] = [];
  store.subscribe(() => {
    throw new Error("broken listener");
  });
  const stop = store.subscribe((userId, event) => told.push(`${userId} ${event.type}`));
  store.record("alice", "session.ended", { session_id: "s1", reason: "deleted" });
  stop();
  store.record("alice", "session.created", { session_id: "s2" });
  assert.deepEqual(told, ["alice session.ended"]);
});

test("users whose executions alone were told are let go too, when nothing else is ever recorded", () => {
  let now = Date.parse("2026-01-01T00:00:00.000Z");
  const store = createEventStore({ now: () => now, keepMs: 60_000 });
  for (let user = 0; user < 10_000; user++) store.sawExecutionEvent(`user${user}`, now);
  now += 120_000;
  store.sawExecutionEvent("alice", now);
  assert.equal(store.users(), 1);
});

test("events outlive the store: one opened again on the same file lists them with their ids, and numbers and times on past them, its clock set back", async (t) => {
  const db = openDatabaseFile(join(await testDir(t), "harness.db"));
  t.after(() => db.close());
  const at = Date.parse("2026-01-01T00:00:00.000Z");
  const first = createEventStore({ rows: createFeedRows(db), now: () => at });
  const made = first.record("alice", "session.created", { session_id: "s1" });
  const installed = first.record("alice", "skill.installed", { skill_id: "deploy", session_id: "s1" });
  first.record("bob", "session.created", { session_id: "b1" });
  assert.equal(await first.close(), true);

  const again = createEventStore({ rows: createFeedRows(db), now: () => at - 5000 });
  assert.deepEqual(again.list("alice"), [made, installed]);
  assert.deepEqual(again.list("alice", { type: "skill.installed" }), [installed]);
  assert.deepEqual(again.list("alice", { after: placeOf(made.id)! }), [installed]);
  assert.equal(again.count("alice"), 2);
  assert.equal(again.count("alice", { since: at }), 0);
  const next = again.record("alice", "session.ended", { session_id: "s1", reason: "deleted" });
  assert.ok(comesAfter(next.id, placeOf(installed.id)!), `${next.id} after ${installed.id}`);
  assert.equal(next.timestamp, "2026-01-01T00:00:00.000Z", "not before the latest stored, though the clock went back");
  assert.deepEqual(again.list("alice", {}, 2).map((event) => event.id), [installed.id, next.id], "the newest, oldest first");
});

test("a database that cannot be written: the event is still told and listed, the failure logged once, and it is written once the database takes it", async () => {
  const rows = createFeedRows(memoryFeedDatabase());
  let broken = true;
  const failing: FeedRows = {
    ...rows,
    add(added) {
      if (broken) throw new Error("database or disk is full");
      rows.add(added);
    },
  };
  const logged: string[] = [];
  const store = createEventStore({ rows: failing, log: (line, level) => logged.push(`${level} ${line}`) });
  const told: string[] = [];
  store.subscribe((_userId, event) => told.push(event.type));
  store.record("alice", "session.created", { session_id: "s1" });
  store.record("alice", "skill.installed", { skill_id: "deploy" });
  assert.deepEqual(told, ["session.created", "skill.installed"]);
  assert.deepEqual(store.list("alice").map((event) => event.type), ["session.created", "skill.installed"]);
  assert.equal(store.count("alice", { type: "skill.installed" }), 1);
  assert.equal(logged.length, 1);
  assert.match(logged[0], /^error events: cannot write the event feed's events \(database or disk is full\)/);

  broken = false;
  await new Promise((resolve) => setTimeout(resolve, 1300));
  assert.equal(rows.count("alice", { keptFrom: 0, max: 100 }), 2, "written once it could be");
  assert.match(logged.at(-1)!, /^info events: the event feed's events are written again \(2 waited\)/);
  assert.deepEqual(store.list("alice").map((event) => event.type), ["session.created", "skill.installed"], "listed once each");
  await store.close();
});

test("a server that stops while the database refuses writes waits a while for it to take the events, as the sessions' writes wait, and says how many were lost if it never does", async () => {
  for (const released of [true, false]) {
    const rows = createFeedRows(memoryFeedDatabase());
    let broken = true;
    const failing: FeedRows = {
      ...rows,
      add(added) {
        if (broken) throw new Error("the session database is locked by another process");
        rows.add(added);
      },
    };
    const logged: string[] = [];
    const store = createEventStore({ rows: failing, log: (line, level) => logged.push(`${level} ${line}`) });
    store.record("alice", "session.created", { session_id: "s1" });
    if (released) setTimeout(() => (broken = false), 300);
    const started = Date.now();
    assert.equal(await store.close(released ? 5000 : 600), released);
    assert.equal(rows.count("alice", { keptFrom: 0, max: 100 }), released ? 1 : 0);
    if (released) assert.ok(Date.now() - started < 2000, "done once the database took them");
    else {
      assert.ok(Date.now() - started >= 550, "waited");
      assert.match(logged.at(-1)!, /^error events: 1 of the event feed's events were never written/);
    }
  }
});
