import { test } from "node:test";
import assert from "node:assert/strict";
import { createLogBuffer, keptLevel, teeLog } from "./buffer.ts";

test("the buffer keeps the records of its level and above, in order, numbered from 1, with their time", () => {
  let clock = 1000;
  const buffer = createLogBuffer({ least: "info", now: () => clock++ });
  buffer.push("d", { level: "debug" });
  buffer.push("i");
  buffer.push("session ann/s1: run failed", { level: "error", msg: "run failed", user: "ann", session: "s1" });
  assert.deepEqual(
    buffer.records().map((r) => [r.seq, r.at, r.level, r.line, r.detail]),
    [
      [1, 1000, "info", "i", undefined],
      [2, 1001, "error", "session ann/s1: run failed", { level: "error", msg: "run failed", user: "ann", session: "s1" }],
    ],
  );
  assert.equal(buffer.last(), 2);
  assert.deepEqual(buffer.after(1).map((r) => r.seq), [2]);
  assert.deepEqual(buffer.after(0).map((r) => r.seq), [1, 2]);
  assert.deepEqual(buffer.after(2), []);
  assert.deepEqual(buffer.after(99), []);
});

test("the oldest records go past the most records or the most characters kept", () => {
  const byCount = createLogBuffer({ maxRecords: 3 });
  for (let i = 1; i <= 3000; i++) byCount.push(`line ${i}`);
  assert.deepEqual(byCount.records().map((r) => r.line), ["line 2998", "line 2999", "line 3000"]);
  assert.deepEqual(byCount.after(1).map((r) => r.seq), [2998, 2999, 3000], "a place no longer kept resumes at the oldest kept");
  assert.deepEqual(byCount.after(2999).map((r) => r.seq), [3000]);

  const byChars = createLogBuffer({ maxChars: 1000 });
  for (let i = 0; i < 20; i++) byChars.push("x".repeat(100), { msg: "y".repeat(100) });
  const kept = byChars.records();
  assert.ok(kept.length >= 2 && kept.length <= 4, `${kept.length} kept`);
  assert.ok(kept.reduce((sum, r) => sum + r.size, 0) <= 1000);
  assert.equal(kept.at(-1)!.seq, 20);
});

test("a tee writes each line to the log and the buffer, and the buffer's listeners hear each record kept", () => {
  const buffer = createLogBuffer();
  const written: string[] = [];
  const heard: number[] = [];
  const stop = buffer.subscribe((record) => heard.push(record.seq));
  const log = teeLog((line) => written.push(line), buffer);
  log("a");
  log("b", { level: "debug" });
  stop();
  log("c");
  assert.deepEqual(written, ["a", "b", "c"]);
  assert.deepEqual(heard, [1]);
  assert.equal(buffer.listeners(), 0);
});

test("a server keeps the records of its log's level (HARNESS_LOG_LEVEL), info when unset or not one", () => {
  assert.equal(keptLevel({}), "info");
  assert.equal(keptLevel({ HARNESS_LOG_LEVEL: "warn" }), "warn");
  assert.equal(keptLevel({ HARNESS_LOG_LEVEL: "loud" }), "info");
});
