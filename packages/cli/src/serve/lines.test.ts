import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { FLUSH_MS, linesTo } from "./lines.ts";

function recordingSink() {
  const writes: string[] = [];
  const sink = Object.assign(new EventEmitter(), { write: (text: string) => writes.push(text) });
  return { sink, writes };
}

test("lines logged together reach the log in one write, in order, within a moment", async () => {
  const { sink, writes } = recordingSink();
  const exits = new EventEmitter();
  const line = linesTo(sink, exits);
  for (let i = 1; i <= 200; i++) line(`session ann/s${i}: run started`);
  assert.deepEqual(writes, [], "nothing is written in the middle of a burst");
  await sleep(FLUSH_MS + 50);
  assert.equal(writes.length, 1);
  assert.equal(writes[0], Array.from({ length: 200 }, (_, i) => `session ann/s${i + 1}: run started\n`).join(""));
  line("later");
  await sleep(FLUSH_MS + 50);
  assert.deepEqual(writes.slice(1), ["later\n"]);
});

test("what waits is written when the process exits, and a reader that went away takes no more", () => {
  const { sink, writes } = recordingSink();
  const exits = new EventEmitter();
  const line = linesTo(sink, exits);
  line("shutting down");
  exits.emit("exit");
  assert.deepEqual(writes, ["shutting down\n"]);
  sink.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
  line("after the reader left");
  exits.emit("exit");
  assert.deepEqual(writes, ["shutting down\n"]);
});

test("a burst larger than the buffer is written as it fills, without waiting", () => {
  const { sink, writes } = recordingSink();
  const line = linesTo(sink, new EventEmitter());
  const long = "x".repeat(1023);
  for (let i = 0; i < 64; i++) line(long);
  assert.equal(writes.length, 1);
  assert.equal(writes[0].length, 64 * 1024);
});
