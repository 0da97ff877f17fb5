import { test } from "node:test";
import assert from "node:assert/strict";
import { createEventLog } from "./event-log.ts";

const ids = (frames: string[]) => frames.map((f) => Number(/^id: (\d+)/.exec(f)?.[1]));
const delta = (text: string) => ({ type: "assistant.delta" as const, text });

test("events get seq 1..n; a replay gives exactly the events after an id", () => {
  const log = createEventLog();
  for (let i = 0; i < 6; i++) log.append(delta(`d${i}`));
  assert.equal(log.lastSeq, 6);
  const after3 = log.replay(3);
  assert.ok(after3.ok);
  assert.deepEqual(ids(after3.frames), [4, 5, 6]);
  assert.match(after3.frames[0], /"text":"d3"/);
  assert.deepEqual(ids((log.replay(0) as { frames: string[] }).frames), [1, 2, 3, 4, 5, 6]);
  assert.deepEqual(log.replay(6), { ok: true, frames: [] });
});

test("listeners follow live and are told when the log ends; a late listener is told at once", () => {
  const log = createEventLog();
  const seen: number[] = [];
  let ended = 0;
  log.append(delta("before"));
  const stop = log.subscribe({ frame: (f) => seen.push(ids([f])[0]), end: () => ended++ });
  log.append(delta("a"));
  log.append(delta("b"));
  const other: number[] = [];
  log.subscribe({ frame: (f) => other.push(ids([f])[0]), end: () => ended++ });
  log.append(delta("c"));
  stop();
  log.append(delta("d"));
  log.end();
  assert.deepEqual(seen, [2, 3, 4]);
  assert.deepEqual(other, [4, 5]);
  assert.equal(ended, 1);
  log.subscribe({ frame: () => assert.fail("no frame after the end"), end: () => ended++ });
  assert.equal(ended, 2);
  assert.throws(() => log.append(delta("late")), /ended/);
});

test("past the limits the oldest events go, and a replay from before them says what is still kept", () => {
  const byCount = createEventLog({ maxEvents: 3, maxBytes: 1e9 });
  for (let i = 0; i < 5; i++) byCount.append(delta(String(i)));
  assert.deepEqual(byCount.replay(1), { ok: false, oldestKept: 3 });
  assert.deepEqual(ids((byCount.replay(2) as { frames: string[] }).frames), [3, 4, 5]);

  const byBytes = createEventLog({ maxEvents: 1e9, maxBytes: 300 });
  for (let i = 0; i < 10; i++) byBytes.append(delta("x".repeat(50)));
  const kept = byBytes.replay(9);
  assert.ok(kept.ok);
  assert.deepEqual(ids(kept.frames), [10]);
  const tooOld = byBytes.replay(0);
  assert.equal(tooOld.ok, false);
  assert.ok(!tooOld.ok && tooOld.oldestKept > 1 && tooOld.oldestKept <= 10);
});

test("a long run keeps a bounded window and still replays its tail in order", () => {
  const log = createEventLog({ maxEvents: 1000, maxBytes: 1e9 });
  for (let i = 1; i <= 10_000; i++) log.append(delta(String(i)));
  const tail = log.replay(9_995);
  assert.ok(tail.ok);
  assert.deepEqual(ids(tail.frames), [9996, 9997, 9998, 9999, 10000]);
  assert.deepEqual(log.replay(8_999), { ok: false, oldestKept: 9001 });
  assert.equal((log.replay(9_000) as { frames: string[] }).frames.length, 1000);
});

test("a last event with a short form: listeners that take it get it, the others and every replay get it whole", () => {
  const log = createEventLog();
  const short: string[] = [];
  const whole: string[] = [];
  log.subscribe({ frame: (f) => short.push(f), end: () => {}, added: true });
  log.subscribe({ frame: (f) => whole.push(f), end: () => {} });
  log.append(delta("a"));
  const all = [{ role: "user" as const, content: "old" }, { role: "user" as const, content: "new" }];
  log.append({ type: "run.completed", transcript: all }, { type: "run.completed", transcript: all.slice(1), transcriptFrom: 1 });
  assert.match(short[1], /^id: 2\n.*"transcript":\[\{"role":"user","content":"new"\}\],"transcriptFrom":1/s);
  assert.match(whole[1], /"transcript":\[\{"role":"user","content":"old"\},\{"role":"user","content":"new"\}\]\}/);
  const replay = log.replay(0);
  assert.ok(replay.ok);
  assert.deepEqual(ids(replay.frames), [1, 2]);
  assert.equal(replay.frames[1], whole[1]);
  assert.deepEqual((log.replay(1) as { frames: string[] }).frames, [whole[1]]);
  assert.deepEqual(log.replay(2), { ok: true, frames: [] });
  assert.throws(() => log.append(delta("late")), /last event is in its log already/);
});
