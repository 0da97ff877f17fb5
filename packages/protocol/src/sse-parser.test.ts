import { test } from "node:test";
import assert from "node:assert/strict";
import { createSseParser, type SseMessage } from "./sse-parser.ts";

function parseAll(chunks: string[]): SseMessage[] {
  const out: SseMessage[] = [];
  const parser = createSseParser((m) => out.push(m));
  for (const chunk of chunks) parser.push(chunk);
  return out;
}

const stream =
  'id: 1\nevent: run.started\ndata: {"type":"run.started"}\n\n' +
  ": a comment line\n" +
  "id: 2\r\nevent: assistant.delta\r\ndata: first line\r\ndata: second line\r\n\r\n" +
  "id: 3\revent: tool.started\rdata:no space\r\r" +
  "data: no id or event\n\n";

const expected: SseMessage[] = [
  { id: "1", event: "run.started", data: '{"type":"run.started"}' },
  { id: "2", event: "assistant.delta", data: "first line\nsecond line" },
  { id: "3", event: "tool.started", data: "no space" },
  { id: "3", event: "message", data: "no id or event" },
];

test("parses LF, CRLF and CR line endings, comments, multi-line data and id carry-over", () => {
  assert.deepEqual(parseAll([stream]), expected);
});

test("gives the same events however the stream is split into chunks", () => {
  for (let cut = 0; cut <= stream.length; cut++) {
    assert.deepEqual(parseAll([stream.slice(0, cut), stream.slice(cut)]), expected, `split at ${cut}`);
  }
  assert.deepEqual(parseAll([...stream]), expected, "one character per chunk");
});

test("drops an event the stream did not finish", () => {
  assert.deepEqual(parseAll(["data: done\n\n", "data: half"]), [{ id: undefined, event: "message", data: "done" }]);
});

test("a blank line without data dispatches nothing and resets the event name", () => {
  assert.deepEqual(parseAll(["event: x\n\n", "data: y\n\n"]), [{ id: undefined, event: "message", data: "y" }]);
});

test("gives the same events when a line comes in many pieces", () => {
  for (let a = 1; a < stream.length; a += 3) {
    for (let b = a + 1; b < stream.length; b += 5) {
      assert.deepEqual(parseAll([stream.slice(0, a), stream.slice(a, b), stream.slice(b)]), expected, `split at ${a} and ${b}`);
    }
  }
});

test("reads an event of megabytes sent in small chunks whole", () => {
  const big = "x".repeat(3 * 1024 * 1024);
  const text = `id: 9\r\nevent: run.completed\r\ndata: ${big}\r\n\r\ndata: after\n\n`;
  const chunks: string[] = [];
  for (let at = 0; at < text.length; at += 4096) chunks.push(text.slice(at, at + 4096));
  const events = parseAll(chunks);
  assert.equal(events.length, 2);
  assert.equal(events[0].event, "run.completed");
  assert.equal(events[0].data.length, big.length);
  assert.ok(events[0].data === big);
  assert.deepEqual(events[1], { id: "9", event: "message", data: "after" });
});

test("finish() takes a last line without its line ending and an event without its blank line", () => {
  const out: SseMessage[] = [];
  const parser = createSseParser((m) => out.push(m));
  parser.push('data: {"a":1}\n\nevent: last\ndata: {"b"');
  parser.push(":2}");
  assert.equal(out.length, 1);
  parser.finish();
  assert.deepEqual(out.at(-1), { id: undefined, event: "last", data: '{"b":2}' });
  const ended: SseMessage[] = [];
  const terminated = createSseParser((m) => ended.push(m));
  terminated.push("data: x\n");
  terminated.finish();
  terminated.finish();
  assert.deepEqual(ended, [{ id: undefined, event: "message", data: "x" }], "once, and a second finish adds nothing");
});
