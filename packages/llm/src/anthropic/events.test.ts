import assert from "node:assert/strict";
import { test } from "node:test";
import { anthropicEvents } from "./events.ts";
import { streamFailure } from "./failure.ts";
import { collectOrError as collect, eventStream } from "../test-support.ts";

const delta = (text: string) =>
  `event: content_block_delta\ndata: ${JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })}\n\n`;

test("events come whole and in order however the stream is cut, a character's bytes included; pings are skipped", async (t) => {
  const text = `event: message_start\ndata: {"type":"message_start"}\n\n: a comment\nevent: ping\ndata: {"type": "ping"}\n\n${delta("né ✓ 日本")}${delta("two")}event: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\n`;
  const bytes = Buffer.from(text);
  // Cut every 7 bytes: several cuts fall inside a multi-byte character and between \r and \n.
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += 7) chunks.push(bytes.subarray(i, i + 7));
  const { res, headers } = await eventStream(t, chunks);
  const { events, error } = await collect(anthropicEvents(res, headers));
  assert.equal(error, undefined);
  assert.deepEqual(
    events.map((e) => (e as { type: string; delta?: { text: string } }).delta?.text ?? (e as { type: string }).type),
    ["message_start", "né ✓ 日本", "two", "message_stop"],
  );
});

test("an error event ends the stream with the SDK's error, after the events before it", async (t) => {
  const error = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };
  const { res, headers } = await eventStream(t, [delta("partial"), `event: error\ndata: ${JSON.stringify(error)}\n\n`, delta("never")]);
  const result = await collect(anthropicEvents(res, headers));
  assert.equal(result.events.length, 1, "the delta before the error is read");
  assert.deepEqual(streamFailure(result.error), { description: "Anthropic API stream error (overloaded_error): Overloaded", retryable: true, kind: "server_error", code: "overloaded_error" });
  assert.equal((result.error as { requestID?: string }).requestID, "req_1", "the error carries the answer's headers");

  const final = { type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } };
  const second = await eventStream(t, [`event: error\ndata: ${JSON.stringify(final)}\n\n`]);
  const failure = streamFailure((await collect(anthropicEvents(second.res, second.headers))).error);
  assert.equal(failure.retryable, false, "an error about the request is not retried");
});

test("an event whose data is not a JSON object fails the stream, naming the event", async (t) => {
  for (const data of ["{not json", "null", "42"]) {
    const { res, headers } = await eventStream(t, [delta("ok"), `event: content_block_delta\ndata: ${data}\n\n`]);
    const { events, error } = await collect(anthropicEvents(res, headers));
    assert.equal(events.length, 1);
    assert.match(String((error as Error).message), new RegExp(`content_block_delta event whose data is not a JSON object: ${data.replace("{", "\\{")}`));
  }
});

test("a connection cut before the body ended is 'terminated', as with fetch; an abort gives the signal's reason", async (t) => {
  const { res, headers } = await eventStream(t, [delta("one")], { cut: true });
  const { events, error } = await collect(anthropicEvents(res, headers));
  assert.equal(events.length, 1);
  assert.equal((error as Error).message, "terminated");
  assert.match(streamFailure(error).description, /^terminated/);

  let release = () => {};
  const hold = new Promise<void>((r) => (release = r));
  const held = await eventStream(t, [delta("one")], { hold });
  const controller = new AbortController();
  const reading = collect(anthropicEvents(held.res, held.headers, controller.signal));
  await new Promise((r) => setTimeout(r, 20));
  const reason = new Error("stop now");
  controller.abort(reason);
  held.res.destroy(reason);
  const aborted = await reading;
  assert.equal(aborted.error, reason);
  release();
});

test("leaving the iteration early closes the connection; a slow reader still gets every event in order", async (t) => {
  let release = () => {};
  const hold = new Promise<void>((r) => (release = r));
  const { res, headers, closed } = await eventStream(t, [delta("one"), delta("two")], { hold });
  for await (const event of anthropicEvents(res, headers)) {
    assert.equal((event as { delta: { text: string } }).delta.text, "one");
    break;
  }
  for (let i = 0; i < 50 && !closed(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(closed(), "the server saw the connection close");
  release();

  // More events than are queued before the socket is paused, all in one chunk, read slowly.
  const many = Array.from({ length: 1000 }, (_, i) => delta(String(i))).join("");
  const slow = await eventStream(t, [many]);
  const seen: string[] = [];
  for await (const event of anthropicEvents(slow.res, slow.headers)) {
    seen.push((event as { delta: { text: string } }).delta.text);
    if (seen.length % 100 === 0) await new Promise((r) => setTimeout(r, 5));
  }
  assert.deepEqual(seen, Array.from({ length: 1000 }, (_, i) => String(i)));
});

test("the stream answers its signal itself: an abort while the model is silent ends it with the signal's reason", async (t) => {
  let release = () => {};
  const hold = new Promise<void>((r) => (release = r));
  const { res, headers, closed } = await eventStream(t, [delta("one")], { hold });
  const controller = new AbortController();
  const events = anthropicEvents(res, headers, controller.signal)[Symbol.asyncIterator]();
  assert.equal((await events.next()).done, false, "the first event is read");
  // The model then says nothing more until the run gives up on it.
  const reason = new Error("stalled");
  controller.abort(reason);
  await assert.rejects(events.next(), (error) => error === reason);
  for (let i = 0; i < 50 && !closed(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(closed(), "the connection was closed");
  release();
});
