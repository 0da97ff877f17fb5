import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_PROGRESS_MESSAGE_CHARS, progressLine, progressLines } from "./progress-lines.ts";

test("a report is a line: the count of the total, a percentage, the count alone or the message alone", () => {
  assert.equal(progressLine({ progress: 3, total: 10, message: "compiling" }), "[3/10] compiling");
  assert.equal(progressLine({ progress: 3, total: 10 }), "[3/10]");
  assert.equal(progressLine({ progress: 0.42, total: 1, message: "indexing" }), "[42%] indexing");
  assert.equal(progressLine({ progress: 7 }), "[7]");
  assert.equal(progressLine({ progress: 2.5 }), "[2.5]");
  assert.equal(progressLine({ message: "uploading" }), "uploading");
});

test("bad values are left out or clipped, never refused", () => {
  assert.equal(progressLine({ progress: "3", total: 10, message: "compiling" }), "compiling", "a progress that is not a number");
  assert.equal(progressLine({ progress: -1, message: "compiling" }), "compiling", "a negative progress");
  assert.equal(progressLine({ progress: 12, total: 10 }), "[10/10]", "a progress past its total");
  assert.equal(progressLine({ progress: 3, total: -5 }), "[3]", "a negative total");
  assert.equal(progressLine({ progress: 3, total: 0 }), "[3]", "a total of zero");
  assert.equal(progressLine({ progress: 3, message: 42 }), "[3]", "a message that is not text");
  assert.equal(progressLine({ progress: Number.NaN }), undefined);
  assert.equal(progressLine(null), undefined);
  assert.equal(progressLine("3/10"), undefined);
  assert.equal(progressLine({}), undefined);
  assert.equal(progressLine({ message: "two\nlines\r\x1b[2J" }), "two lines [2J", "one line, control characters as spaces");
  const long = progressLine({ message: "x".repeat(100_000) })!;
  assert.equal(long, `${"x".repeat(MAX_PROGRESS_MESSAGE_CHARS)}…`);
  assert.equal(progressLine({ message: `${"x".repeat(MAX_PROGRESS_MESSAGE_CHARS - 1)}😀😀` }), `${"x".repeat(MAX_PROGRESS_MESSAGE_CHARS - 1)}…`, "no half emoji");
});

test("a report that changes nothing gives no line", () => {
  const next = progressLines();
  assert.equal(next({ progress: 1, total: 3, message: "a" }), "[1/3] a\n");
  assert.equal(next({ progress: 1, total: 3, message: "a" }), undefined);
  assert.equal(next({ progress: "x" }), undefined);
  assert.equal(next({ progress: 2, total: 3, message: "a" }), "[2/3] a\n");
  assert.equal(next({ progress: 2, total: 3 }), "[2/3]\n");
});
