import assert from "node:assert/strict";
import { createHook } from "node:async_hooks";
import { once } from "node:events";
import { test } from "node:test";
import { openAIEvents } from "./events.ts";
import { openAIStreamFailure } from "./failure.ts";
import { collectOrError as collect, eventStream } from "../test-support.ts";

const chunk = (content: string) => `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })}\n\n`;
const contentOf = (events: unknown[]) => events.map((e) => (e as { choices: { delta: { content: string } }[] }).choices[0].delta.content);

test("chunks come whole and in order however the stream is cut; [DONE] ends the reply and the connection is left to finish", async (t) => {
  const bytes = Buffer.from(`${chunk("né ✓")}: keep-alive\n\n${chunk("two")}data: [DONE]\n\n${chunk("after the end")}`);
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 5) pieces.push(bytes.subarray(i, i + 5));
  const { res, headers } = await eventStream(t, pieces);
  const { events, error } = await collect(openAIEvents(res, headers));
  assert.equal(error, undefined);
  assert.deepEqual(contentOf(events), ["né ✓", "two"]);
  // The body is read to its end, so the kept connection can serve the next request.
  for (let i = 0; i < 50 && !res.complete; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(res.complete, true);
});

test("a body that ends lets go of its grace timer at once, rather than holding the response for the whole grace", async (t) => {
  const GRACE_MS = 60_000;
  const graceTimers = new Set<number>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (type === "Timeout" && (resource as { _idleTimeout?: number })._idleTimeout === GRACE_MS) graceTimers.add(id);
    },
    destroy: (id) => void graceTimers.delete(id),
  }).enable();
  t.after(() => hook.disable());
  const { res, headers } = await eventStream(t, [`${chunk("one")}data: [DONE]\n\n`]);
  const { events, error } = await collect(openAIEvents(res, headers, undefined, { endGraceMs: GRACE_MS }));
  assert.equal(error, undefined);
  assert.deepEqual(contentOf(events), ["one"]);
  if (!res.complete) await once(res, "end");
  // Destroy hooks are told a turn or two after the timer is cleared.
  for (let i = 0; i < 5 && graceTimers.size > 0; i++) await new Promise((r) => setImmediate(r));
  assert.equal(graceTimers.size, 0, "the grace timer is still pending after the body ended");
});

test("a chunk with an error, or an error event, ends the stream with the SDK's error, after the chunks before it", async (t) => {
  const error = { message: "model overloaded", type: "server_error", code: "overloaded" };
  const inChunk = await eventStream(t, [chunk("partial"), `data: ${JSON.stringify({ error })}\n\n`, chunk("never")]);
  const first = await collect(openAIEvents(inChunk.res, inChunk.headers));
  assert.deepEqual(contentOf(first.events), ["partial"]);
  assert.match(openAIStreamFailure(first.error, "Ollama", "qwen3").description, /model overloaded/);

  const named = await eventStream(t, [`event: error\ndata: ${JSON.stringify({ error })}\n\n`]);
  const second = await collect(openAIEvents(named.res, named.headers));
  assert.match(openAIStreamFailure(second.error, "Ollama", "qwen3").description, /model overloaded/);
});

test("data that is not JSON, or not a JSON object, fails the stream", async (t) => {
  for (const data of ["{not json", "42"]) {
    const { res, headers } = await eventStream(t, [chunk("ok"), `data: ${data}\n\n`]);
    const { events, error } = await collect(openAIEvents(res, headers));
    assert.equal(events.length, 1);
    assert.ok(error instanceof SyntaxError, String(error));
    assert.match((error as Error).message, /^Error reading response: /);
  }
});

test("a last chunk without its closing blank line is still read, as the SDK reads it", async (t) => {
  const last = `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content: "end" }, finish_reason: "stop" }] })}\n`;
  const { res, headers } = await eventStream(t, [chunk("one"), last]);
  const { events, error } = await collect(openAIEvents(res, headers));
  assert.equal(error, undefined);
  assert.deepEqual(contentOf(events), ["one", "end"]);
});

test("after [DONE], a body the server does not end is let go of, and an abort is no failure", async (t) => {
  let release = () => {};
  const hold = new Promise<void>((r) => (release = r));
  t.after(() => release());
  const held = await eventStream(t, [chunk("one"), "data: [DONE]\n\n"], { hold });
  const { events, error } = await collect(openAIEvents(held.res, held.headers, undefined, { endGraceMs: 50 }));
  assert.equal(error, undefined);
  assert.deepEqual(contentOf(events), ["one"]);
  for (let i = 0; i < 50 && !held.closed(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(held.closed(), "the connection was closed after the grace period");

  const again = await eventStream(t, [`${chunk("two")}data: [DONE]\n\n`], { hold });
  // The abort comes after [DONE] arrived but before the reader took the chunk before it.
  const controller = new AbortController();
  const events2 = openAIEvents(again.res, again.headers, controller.signal);
  await once(again.res, "data");
  controller.abort(new Error("stop"));
  const aborted = await collect(events2);
  assert.equal(aborted.error, undefined);
  assert.deepEqual(contentOf(aborted.events), ["two"]);
});
