import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findCheckpoint, readStore, recordCut, recordRun, storePath, subtractTotals, ZERO_TOTALS, type Checkpoint } from "./store.ts";

function stateDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-cc-store-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "state");
}

const totals = (n: number, costUsd: number) => ({ inputTokens: n, outputTokens: n, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd });
const checkpoint = (userMessageId: string, sessionId: string, created: string[] = []): Checkpoint => ({
  userMessageId,
  sessionId,
  checkpointUuid: `uuid-${userMessageId}`,
  cwd: "/w",
  created,
});

test("runs are filed per session message; a rewind point knows the files created since, in the same session only", async (t) => {
  const dir = stateDir(t);
  assert.deepEqual(await readStore(dir), { checkpoints: [], sessions: {}, cuts: {}, rates: {} });
  await recordRun(dir, { sessionId: "s1", totals: totals(10, 0.1), checkpoint: checkpoint("m1", "s1", ["/w/a"]) });
  await recordRun(dir, { sessionId: "s2", totals: totals(5, 0.05), checkpoint: checkpoint("x1", "s2", ["/w/other"]) });
  await recordRun(dir, { sessionId: "s1", totals: totals(30, 0.3), checkpoint: checkpoint("m2", "s1", ["/w/b"]) });
  await recordRun(dir, { sessionId: "s1", totals: totals(40, 0.4) });

  const data = await readStore(dir);
  assert.deepEqual(data.sessions.s1, totals(40, 0.4));
  assert.deepEqual(data.checkpoints.map((c) => c.userMessageId), ["m1", "x1", "m2"]);
  const m1 = findCheckpoint(data, "m1");
  assert.equal(m1?.checkpoint.checkpointUuid, "uuid-m1");
  assert.deepEqual([...m1!.createdSince].sort(), ["/w/a", "/w/b"]);
  assert.deepEqual([...findCheckpoint(data, "m2")!.createdSince], ["/w/b"]);
  assert.equal(findCheckpoint(data, "nope"), undefined);
});

test("a run filed again for the same message replaces its checkpoint", async (t) => {
  const dir = stateDir(t);
  await recordRun(dir, { sessionId: "s1", totals: ZERO_TOTALS, checkpoint: checkpoint("m1", "s1") });
  await recordRun(dir, { sessionId: "s1", totals: ZERO_TOTALS, checkpoint: { ...checkpoint("m1", "s1"), checkpointUuid: "retried" } });
  assert.deepEqual((await readStore(dir)).checkpoints.map((c) => c.checkpointUuid), ["retried"]);
});

test("an unreadable store file counts as empty rather than failing runs", async (t) => {
  const dir = stateDir(t);
  mkdirSync(dir, { recursive: true });
  writeFileSync(storePath(dir), "{not json");
  assert.deepEqual(await readStore(dir), { checkpoints: [], sessions: {}, cuts: {}, rates: {} });
  writeFileSync(storePath(dir), JSON.stringify({ checkpoints: [{ userMessageId: 1 }], sessions: {} }));
  assert.deepEqual(await readStore(dir), { checkpoints: [], sessions: {}, cuts: {}, rates: {} });
});

test("a run's usage is the growth of the session's totals, never negative", () => {
  assert.deepEqual(subtractTotals(totals(300, 0.0181), totals(100, 0.006)), totals(200, 0.0121));
  assert.deepEqual(subtractTotals(totals(5, 0.01), totals(10, 0.02)), totals(0, 0));
});

test("a rewind cuts before the message: after the session's previous run, else where the session was forked from", async (t) => {
  const dir = stateDir(t);
  await recordRun(dir, { sessionId: "s1", totals: ZERO_TOTALS, checkpoint: { ...checkpoint("m1", "s1"), lastUuid: "end-of-m1" } });
  await recordRun(dir, { sessionId: "s1", totals: ZERO_TOTALS, checkpoint: { ...checkpoint("m2", "s1"), lastUuid: "end-of-m2" } });
  await recordRun(dir, {
    sessionId: "s2",
    totals: ZERO_TOTALS,
    cutDone: "s1",
    checkpoint: { ...checkpoint("m3", "s2"), lastUuid: "end-of-m3", origin: { sessionId: "s1", at: "end-of-m1" } },
  });
  const data = await readStore(dir);
  assert.equal(findCheckpoint(data, "m1")!.cutAt, null);
  assert.deepEqual(findCheckpoint(data, "m2")!.cutAt, { sessionId: "s1", at: "end-of-m1" });
  assert.deepEqual(findCheckpoint(data, "m3")!.cutAt, { sessionId: "s1", at: "end-of-m1" });

  await recordCut(dir, ["s1", "s2"], { sessionId: "s1", at: "end-of-m1" });
  assert.deepEqual(Object.keys((await readStore(dir)).cuts).sort(), ["s1", "s2"]);
  await recordRun(dir, { sessionId: "s3", totals: ZERO_TOTALS, cutDone: "s2" });
  assert.deepEqual(Object.keys((await readStore(dir)).cuts), ["s1"]);
});
