import { test } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import type { OpenHarness } from "./common.ts";
import { createEventFeed } from "./event-feed.ts";
import { createEventStore } from "./event-store.ts";
import type { Execution } from "./executions.ts";
import { MAX_QUEUED_EVENTS } from "./live-sse.ts";
import { mountEventRoutes } from "./routes-events.ts";

const execution = (id: string): Execution => ({ id, userId: "alice", sessionId: "s1", startedAt: new Date().toISOString() }) as unknown as Execution;

test("a stream whose client does not read holds a bounded number of events, then ends (to be resumed after its Last-Event-ID)", async () => {
  const app = new Hono();
  const feed = createEventFeed();
  mountEventRoutes({ app, executions: { list: () => [] }, events: createEventStore() } as unknown as OpenHarness, feed);
  const response = await app.request("/v1/harnesses/harness/events/stream", { headers: { "x-harness-user": "alice" } });
  assert.equal(response.status, 200);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(feed.listeners(), 1);
  // The client reads nothing while many events come.
  for (let i = 0; i < MAX_QUEUED_EVENTS * 3; i++) feed.publish({ type: "started", execution: execution(`e${String(i).padStart(6, "0")}`) });
  assert.equal(feed.listeners(), 0, "the stream stopped listening once it held too many");
  const text = await response.text();
  const sent = text.split("\n\n").filter((block) => block.includes("data:")).length;
  assert.ok(sent <= MAX_QUEUED_EVENTS + 2, `${sent} events sent`);
});
