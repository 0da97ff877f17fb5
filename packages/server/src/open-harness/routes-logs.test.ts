import { test } from "node:test";
import assert from "node:assert/strict";
import { Hono } from "hono";
import { createLogBuffer } from "../log/buffer.ts";
import type { OpenHarness } from "./common.ts";
import { MAX_QUEUED_EVENTS } from "./live-sse.ts";
import { mountLogRoutes } from "./routes-logs.ts";

test("a log stream whose client does not read holds a bounded number of records, then ends (to be resumed after its Last-Event-ID)", async () => {
  const app = new Hono();
  const logs = createLogBuffer();
  mountLogRoutes({ app, startedAt: new Date().toISOString() } as unknown as OpenHarness, logs);
  const response = await app.request("/v1/harnesses/harness/logs/stream");
  assert.equal(response.status, 200);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(logs.listeners(), 1);
  // The client reads nothing while many records come.
  for (let i = 0; i < MAX_QUEUED_EVENTS * 3; i++) logs.push(`line ${i}`, { msg: "a line", n: i });
  assert.equal(logs.listeners(), 0, "the stream stopped listening once it held too many");
  const text = await response.text();
  const sent = text.split("\n\n").filter((block) => block.includes("data:")).length;
  assert.ok(sent <= MAX_QUEUED_EVENTS + 2, `${sent} records sent`);
});

test("a stream resumed after an id of an earlier server is sent every record kept; one after an id of this one, those after it", async () => {
  const app = new Hono();
  const logs = createLogBuffer();
  const startedAt = new Date().toISOString();
  mountLogRoutes({ app, startedAt } as unknown as OpenHarness, logs);
  for (const line of ["a", "b", "c"]) logs.push(line);
  const epoch = Date.parse(startedAt).toString(36);
  const firstOf = async (lastEventId: string) => {
    const controller = new AbortController();
    const response = await app.request("/v1/harnesses/harness/logs/stream", { headers: { "last-event-id": lastEventId }, signal: controller.signal });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const { value } = await reader.read();
    controller.abort();
    await reader.cancel().catch(() => {});
    return JSON.parse(/data: (.*)/.exec(value!)![1]).message;
  };
  assert.equal(await firstOf("abc-99"), "a");
  assert.equal(await firstOf(`${epoch}-1`), "b");
  assert.equal(await firstOf(`${epoch}-0`), "a");
});
