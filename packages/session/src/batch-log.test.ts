import { test } from "node:test";
import assert from "node:assert/strict";
import { createBatchLog } from "./batch-log.ts";

const frame = (seq: number, size: number) => `{"seq":${seq},"t":"${"x".repeat(size)}"}`;

test("the log holds the newest frames, bounded in number and in bytes, and says how large a replay would be", () => {
  const log = createBatchLog(5, 1_000);
  for (let seq = 1; seq <= 8; seq++) log.push(seq, frame(seq, 100));
  assert.equal(log.oldest(), 4, "five frames at most");
  assert.deepEqual(log.after(5), [6, 7, 8].map((seq) => frame(seq, 100)));
  assert.equal(log.bytesAfter(5), [6, 7, 8].reduce((sum, seq) => sum + frame(seq, 100).length, 0));
  assert.equal(log.after(2), undefined, "batch 3 is no longer held");
  assert.equal(log.bytesAfter(2), undefined);
  assert.equal(log.after(8), undefined, "nothing after the newest");

  log.push(9, frame(9, 450));
  log.push(10, frame(10, 450));
  assert.equal(log.oldest(), 9, "under 1,000 bytes: the two large frames, nothing older");
  assert.equal(log.bytesAfter(8), frame(9, 450).length + frame(10, 450).length);
  log.push(11, frame(11, 5_000));
  assert.equal(log.oldest(), 11, "a frame over the bound alone is still held");
  assert.deepEqual(log.after(10), [frame(11, 5_000)]);
});

test("the log refuses a capacity or byte bound that holds nothing", () => {
  assert.throws(() => createBatchLog(0), /capacity must be a positive integer/);
  assert.throws(() => createBatchLog(5, 0), /byte limit must be positive/);
});
