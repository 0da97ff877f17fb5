// A server's run that ends while nobody follows it is written to the workspace's state directory,
// read back from there by a server that returns after the runner let go of it, and removed once its
// end was delivered.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunnerEvent } from "@harness/protocol";
import { keepFinishedRun, readFinishedRun } from "./finished-runs.ts";
import { nodeTransport } from "../client/node-transport.ts";
import { encodeEvent } from "../http/sse.ts";
import { collect, fakeBackend, never, startRunner, usage, waitFor, type TestContext } from "../test-support.ts";

function stateDirFor(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-finished-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const keptFiles = (stateDir: string) => {
  try {
    return readdirSync(join(stateDir, "finished-runs"));
  } catch {
    return [];
  }
};

/** A runner whose one run emits two deltas once `release` is called. */
async function runnerWithHeldRun(t: TestContext, stateDir: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const backend = fakeBackend(async (_q, ctx) => {
    ctx.emit({ type: "assistant.delta", text: "a" });
    await released;
    ctx.emit({ type: "assistant.delta", text: "b" });
    return { ok: true, result: "ab", usage, transcript: [{ role: "user", content: "p" }] };
  });
  // node:http, as the server's: a closed stream closes its connection.
  const { client, server } = await startRunner(t, { backend, stateDir, transport: nodeTransport() });
  const connections = () => new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
  return { client, release, connections };
}

/** Starts a keep-running query, reads its first two events (run.started, the first delta), closes it. */
async function startAndLeave(client: Awaited<ReturnType<typeof runnerWithHeldRun>>["client"]): Promise<{ id: string; seen: RunnerEvent[] }> {
  const controller = new AbortController();
  const iter = client.query({ prompt: "p" }, { signal: controller.signal, keepRunning: true })[Symbol.asyncIterator]();
  const seen = [(await iter.next()).value as RunnerEvent, (await iter.next()).value as RunnerEvent];
  assert.equal(seen[0].type, "run.started");
  controller.abort();
  await iter.return?.();
  return { id: (seen[0] as { requestId: string }).requestId, seen };
}

test("a server's run that ends with nobody following it is kept on disk, as the runner would replay it", async (t) => {
  const stateDir = stateDirFor(t);
  const { client, release, connections } = await runnerWithHeldRun(t, stateDir);
  const { id, seen } = await startAndLeave(client);
  // The runner has seen its stream go.
  await waitFor(async () => (await connections()) === 0, "the query's connection to close");
  release();
  await waitFor(() => keptFiles(stateDir).length === 1, "the run's end to be kept");
  assert.deepEqual(keptFiles(stateDir), [`${id}.sse`]);

  const kept = (await readFinishedRun(stateDir, id, 0))!;
  assert.deepEqual(kept.slice(0, 2), seen);
  assert.deepEqual(
    kept.map((e) => e.type),
    ["run.started", "assistant.delta", "assistant.delta", "run.completed"],
  );
  const end = kept.at(-1) as { transcript?: unknown[]; result?: string };
  assert.equal(end.result, "ab");
  // Whole, not relative to a history only the query's own stream knew.
  assert.equal(end.transcript?.length, 1);
  assert.deepEqual(
    (await readFinishedRun(stateDir, id, 2))!.map((e) => e.seq),
    [3, 4],
  );
  // The same events a re-attach gets from memory; delivering the end from there drops the copy.
  assert.deepEqual(await collect(client.events(id, { afterSeq: 0, signal: never() })), kept);
  await waitFor(() => keptFiles(stateDir).length === 0, "the copy to be removed");
  assert.equal(await readFinishedRun(stateDir, id, 0), undefined);
});

test("a run followed to its end, or one whose query does not keep running, is not written down", async (t) => {
  const stateDir = stateDirFor(t);
  const { client, release } = await runnerWithHeldRun(t, stateDir);
  release();
  await collect(client.query({ prompt: "p" }, { signal: never(), keepRunning: true }));
  // Closed early without keep-running: the run is cancelled, and its caller is not coming back.
  const controller = new AbortController();
  const iter = client.query({ prompt: "p" }, { signal: controller.signal })[Symbol.asyncIterator]();
  await iter.next();
  controller.abort();
  await iter.return?.();
  await waitFor(async () => !(await client.health()).busy, "the cancelled run to end");
  assert.deepEqual(keptFiles(stateDir), []);
});

test("a kept run that does not reach back far enough is no answer, and a damaged one is an error naming its file", async (t) => {
  const stateDir = stateDirFor(t);
  const frames = [encodeEvent(5, { type: "assistant.delta", text: "late" }), encodeEvent(6, { type: "run.error", message: "boom" })];
  keepFinishedRun(stateDir, "r/1", frames);
  assert.deepEqual(keptFiles(stateDir), ["r%2F1.sse"]);
  assert.deepEqual(
    (await readFinishedRun(stateDir, "r/1", 4))!.map((e) => e.type),
    ["assistant.delta", "run.error"],
  );
  assert.equal(await readFinishedRun(stateDir, "r/1", 2), undefined, "events 3 and 4 are missing");
  assert.equal(await readFinishedRun(stateDir, "other", 0), undefined);

  writeFileSync(join(stateDir, "finished-runs", "cut.sse"), frames[0]);
  await assert.rejects(readFinishedRun(stateDir, "cut", 0), /kept end of run cut \(.*cut\.sse\) is damaged: it does not end with the run's last event/);
  writeFileSync(join(stateDir, "finished-runs", "junk.sse"), "id: 1\ndata: {not json\n\n");
  await assert.rejects(readFinishedRun(stateDir, "junk", 0), /kept end of run junk .* is damaged: runner sent an event that is not JSON/);
});
