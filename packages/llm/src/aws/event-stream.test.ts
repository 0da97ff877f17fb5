// AWS event-stream frames decoded as they arrive, and Bedrock's stream turned into the Messages
// API's SSE by the Bedrock fetch.
import assert from "node:assert/strict";
import { test } from "node:test";
import { crc32 as crc } from "node:zlib";
import { chunkFrame, eventStreamFrame, exceptionFrame } from "@harness/test-utils";
import { EventStreamError, eventStreamDecoder } from "./event-stream.ts";
import { bedrockFetch } from "../bedrock/fetch.ts";

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");

test("frames are decoded whole however the bytes are split: one byte at a time, or two frames in one chunk", () => {
  const first = eventStreamFrame({ ":event-type": "chunk", ":message-type": "event" }, '{"a":1}');
  const second = exceptionFrame("throttlingException", "slow down");
  const bytes = Buffer.concat([first, second]);
  const decoder = eventStreamDecoder();
  const seen = [];
  for (const byte of bytes) seen.push(...decoder.push(Uint8Array.of(byte)));
  decoder.finish();
  assert.equal(seen.length, 2);
  assert.deepEqual(seen[0].headers, { ":event-type": "chunk", ":message-type": "event" });
  assert.equal(text(seen[0].payload), '{"a":1}');
  assert.equal(seen[1].headers[":exception-type"], "throttlingException");
  const together = eventStreamDecoder().push(bytes);
  assert.deepEqual(together.map((m) => text(m.payload)), ['{"a":1}', '{"message":"slow down"}']);
});

test("a frame as large as AWS allows, arriving in small chunks, is gathered with its bytes copied about once", (t) => {
  const frame = eventStreamFrame({ ":event-type": "chunk", ":message-type": "event" }, "y".repeat(16 * 1024 * 1024 - 200));
  const decoder = eventStreamDecoder();
  let copied = 0;
  const concat = Buffer.concat;
  t.mock.method(Buffer, "concat", (list: readonly Uint8Array[], length?: number) => {
    const joined = concat(list, length);
    copied += joined.length;
    return joined;
  });
  const seen = [];
  // Copying all that came each time would move about 32 GiB here.
  for (let at = 0; at < frame.length; at += 4096) seen.push(...decoder.push(frame.subarray(at, at + 4096)));
  decoder.finish();
  assert.equal(seen.length, 1);
  assert.equal(seen[0].payload.length, 16 * 1024 * 1024 - 200);
  assert.ok(copied < 2 * frame.length, `${copied} bytes copied for a frame of ${frame.length}`);
});

test("headers of every type are read, so that the ones after them are too", () => {
  // name "n" type 4 (int32) 7, then ":message-type" as a string.
  const int = Buffer.from([1, 0x6e, 4, 0, 0, 0, 7]);
  const frame = eventStreamFrame({ ":message-type": "event" }, "x");
  // Rebuilt with the int header in front: lengths and CRCs made anew by the encoder's rules.
  const headers = Buffer.concat([int, frame.subarray(12, 12 + frame.readUInt32BE(4))]);
  const rebuilt = Buffer.alloc(12 + headers.length + 1 + 4);
  rebuilt.writeUInt32BE(rebuilt.length, 0);
  rebuilt.writeUInt32BE(headers.length, 4);
  rebuilt.writeUInt32BE(crc(rebuilt.subarray(0, 8)), 8);
  headers.copy(rebuilt, 12);
  rebuilt.write("x", 12 + headers.length);
  rebuilt.writeUInt32BE(crc(rebuilt.subarray(0, rebuilt.length - 4)), rebuilt.length - 4);
  const [message] = eventStreamDecoder().push(rebuilt);
  assert.deepEqual(message.headers, { n: 7, ":message-type": "event" });
});

test("a damaged frame or a body that ends inside one is an EventStreamError saying so", () => {
  assert.throws(() => eventStreamDecoder().push(eventStreamFrame({ ":message-type": "event" }, "payload", true)), (error: unknown) => error instanceof EventStreamError && /message CRC does not match/.test(error.message));
  const prelude = eventStreamFrame({}, "p");
  prelude[9] ^= 1;
  assert.throws(() => eventStreamDecoder().push(prelude), /prelude CRC does not match/);
  const cut = eventStreamDecoder();
  assert.deepEqual(cut.push(chunkFrame("{}").subarray(0, 20)), []);
  assert.throws(() => cut.finish(), /the event stream is damaged: the body ended 20 bytes into a frame/);
});

/** The Bedrock fetch over an answer of `body`, sent in `pieces` chunks. */
async function throughFetch(body: Buffer, pieces = 3, headers: Record<string, string> = {}): Promise<Response> {
  const settings = { region: "us-east-1", baseURL: "https://bedrock.test", skipAuth: true };
  const size = Math.ceil(body.length / pieces);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < body.length; at += size) controller.enqueue(body.subarray(at, at + size));
      controller.close();
    },
  });
  const inner = async () => new Response(stream, { status: 200, headers: { "content-type": "application/vnd.amazon.eventstream", ...headers } });
  return bedrockFetch(settings, {}, inner)("https://bedrock.test/v1/messages", { method: "POST", body: JSON.stringify({ model: "m", messages: [], max_tokens: 1, stream: true }) });
}

test("Bedrock's chunks become the Messages API's SSE events, and an exception in the middle an error event", async () => {
  const start = JSON.stringify({ type: "message_start", message: { id: "msg_1" } });
  const delta = JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi\nthere" } });
  const response = await throughFetch(Buffer.concat([chunkFrame(start), chunkFrame(delta), exceptionFrame("internalServerException", "boom")]));
  assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
  const sse = await response.text();
  assert.equal(
    sse,
    `event: message_start\ndata: ${start}\n\nevent: content_block_delta\ndata: ${delta}\n\n` +
      `event: error\ndata: {"type":"error","error":{"type":"api_error","message":"internalServerException: boom"}}\n\n`,
  );
});

test("an exception before any event answers with its status: a throttlingException is a 429", async () => {
  const response = await throughFetch(exceptionFrame("throttlingException", "Too many tokens, please wait before trying again."), 2);
  assert.equal(response.status, 429);
  assert.deepEqual(await response.json(), { type: "error", error: { type: "rate_limit_error", message: "throttlingException: Too many tokens, please wait before trying again." } });
  assert.equal((await throughFetch(exceptionFrame("validationException", "bad"))).status, 400);
  assert.equal((await throughFetch(exceptionFrame("serviceUnavailableException", "busy"))).status, 503);
});

test("a damaged frame breaks the converted stream with the decoder's words", async () => {
  const good = chunkFrame(JSON.stringify({ type: "message_start", message: {} }));
  const response = await throughFetch(Buffer.concat([good, eventStreamFrame({ ":event-type": "chunk", ":message-type": "event" }, '{"bytes":""}', true)]));
  await assert.rejects(response.text(), /the event stream is damaged: a frame's message CRC does not match/);
});
