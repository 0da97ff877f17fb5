import { test } from "node:test";
import assert from "node:assert/strict";
import { comesAfter, createEventFeed, eventsOf, placeOf } from "./event-feed.ts";
import type { Execution } from "./executions.ts";

function execution(id: string, startedAt: string, completedAt?: string, userId = "alice"): Execution {
  return {
    id,
    userId,
    sessionId: "s1",
    startedAt,
    ...(completedAt !== undefined && { completedAt }),
    // A stored execution's usage is in its whole record: the feed never reads it.
    watch: {
      status: completedAt === undefined ? "running" : "completed",
      get usage(): never {
        throw new Error("the record was read");
      },
    } as unknown as Execution["watch"],
    events: [],
    listeners: new Set(),
    ended: Promise.resolve(),
    cancel: () => false,
    answer: () => {},
    stopAgent: () => {},
    planEdits: [],
    setTodos: async () => ({ ok: false, status: 409, message: "ended" }),
  };
}

test("the feed is every execution's start, and its end once ended, oldest first, a start before an end of the same time", () => {
  const events = eventsOf([
    execution("b", "2026-01-01T00:00:02.000Z"),
    execution("a", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:02.000Z"),
  ]);
  assert.deepEqual(
    events.map((event) => [event.type, event.data.execution_id, event.timestamp]),
    [
      ["execution.started", "a", "2026-01-01T00:00:00.000Z"],
      ["execution.started", "b", "2026-01-01T00:00:02.000Z"],
      ["execution.completed", "a", "2026-01-01T00:00:02.000Z"],
    ],
  );
  assert.deepEqual(events[2].data, { execution_id: "a", session_id: "s1", started_at: "2026-01-01T00:00:00.000Z", status: "completed", completed_at: "2026-01-01T00:00:02.000Z" });
  // Resumed from any id, even one no longer kept, the feed goes on from its place.
  const after = placeOf(events[0].id)!;
  assert.deepEqual(events.filter((event) => comesAfter(event.id, after)), events.slice(1));
  const gone = placeOf(`${Date.parse("2026-01-01T00:00:01.000Z")}-completed-zzz`)!;
  assert.deepEqual(events.filter((event) => comesAfter(event.id, gone)), events.slice(1));
  assert.equal(placeOf("not-an-id"), undefined);
});

test("a live event reaches the streams of its user only, until they stop listening", () => {
  const feed = createEventFeed();
  const alice: string[] = [];
  const bob: string[] = [];
  const stop = feed.subscribe("alice", (event) => alice.push(event.type));
  feed.subscribe("bob", (event) => bob.push(event.type));
  feed.publish({ type: "started", execution: execution("a", "2026-01-01T00:00:00.000Z") });
  stop();
  feed.publish({ type: "ended", execution: execution("a", "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:01.000Z") });
  assert.deepEqual(alice, ["execution.started"]);
  assert.deepEqual(bob, []);
});

test("a listener stopped twice leaves the user's later listeners listening", () => {
  const feed = createEventFeed();
  const got: string[] = [];
  const stop = feed.subscribe("alice", () => {});
  stop();
  feed.subscribe("alice", (event) => got.push(event.type));
  stop();
  feed.publish({ type: "started", execution: execution("a", "2026-01-01T00:00:00.000Z") });
  assert.deepEqual(got, ["execution.started"]);
  assert.equal(feed.listeners(), 1);
});
