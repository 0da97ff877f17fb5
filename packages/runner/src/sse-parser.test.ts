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
