// A server SIGKILLed mid-run: the runner goes on, the restarted server re-attaches to the run, and a
// client reconnecting with `since` gets every delta it missed exactly once while the run finishes.
// A run that ends while the server is away is also kept on disk by its runner, for a server that
// comes back after the runner has gone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MinimalClient, processAlive, startHarnessServer, storedRunnerPid, storedSeq, waitFor } from "@harness/test-utils";
import { idle, startHarness } from "./e2e-commands-support.ts";

function until(condition: () => boolean, what: string): Promise<boolean> {
  return waitFor(condition, what, { timeoutMs: 15_000 });
}

/** A Bash call that waits until the file `go` exists, then prints "waited". */
const waitsFor = (go: string) => ({ name: "Bash", input: { command: `while [ ! -f ${go} ]; do sleep 0.05; done; echo waited` } });

/** Submits `prompt` in fullAuto and resolves once the run's tool call is running. */
async function startWaitingRun(h: Awaited<ReturnType<typeof startHarness>>, sessionId: string, prompt: string) {
  const client = await h.connect(sessionId);
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt });
  await client.waitForState((s) => s.messages[1]?.toolCalls?.[0]?.status === "running", 30_000, "the tool to start");
  return client;
}

/** The process id of the session's runner, as the store recorded it. */
function runnerPid(dataDir: string, ids: { userId: string; sessionId: string }): number {
  const pid = storedRunnerPid(dataDir, ids);
  if (pid === undefined) throw new Error(`no runner is recorded for ${ids.sessionId}`);
  return pid;
}


test("a run survives its server being SIGKILLed: after the restart it finishes and a reconnecting client misses nothing", async () => {
  const h = await startHarness();
  const ids = { userId: "alice", sessionId: "survivor" };
  try {
    const go = join(h.dataDir, "go");
    h.fake.push({ text: ["Before ", "the ", "tool."], toolUses: [waitsFor(go)] }, { text: ["After ", "the ", "restart ", "it ", "finished."] });
    const client = await startWaitingRun(h, ids.sessionId, "survive this");
    // Let the batched store catch up with what the client saw, as a running server would have.
    const seen = { state: structuredClone(client.state!), seq: client.seq };
    await until(() => storedSeq(h.dataDir, ids) >= seen.seq, "the store to catch up");

    const port = h.server.port;
    await h.server.stop("SIGKILL");
    await client.waitFor((c) => c.closed, 10_000, "the socket to drop");
    const runner = { pid: runnerPid(h.dataDir, ids) };
    assert.ok(processAlive(runner.pid), "the runner outlives the server");
    // The run goes on without a server: the tool finishes and the model answers.
    await writeFile(go, "");

    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env, port });
    const back = await MinimalClient.connect(h.server.url, { ...ids, initial: seen });
    await back.waitForState(idle, 30_000, "the run to finish");
    const assistant = back.state!.messages[1];
    assert.equal(assistant.content, "Before the tool.\n\nAfter the restart it finished.");
    assert.equal(assistant.status, "complete");
    assert.match(assistant.toolCalls![0].output ?? "", /waited/);
    assert.equal(back.state!.status, "idle");
    assert.ok(!back.state!.error, `no error: ${back.state!.error}`);

    assert.ok(back.frames.length > 0 && back.frames.every((f) => f.type === "delta"), "only the missed deltas, no snapshot");
    const seqs = back.frames.map((f) => (f as { seq: number }).seq);
    assert.equal(new Set(seqs).size, seqs.length, "no delta twice");
    assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b));
    const fresh = await MinimalClient.connect(h.server.url, ids);
    await fresh.waitForState(() => true);
    assert.deepEqual(back.state, fresh.state);
    assert.deepEqual(back.errors, []);
    await Promise.all([back.close(), fresh.close()]);

    await h.server.stop();
    assert.equal(processAlive(runner.pid), false, "a cleanly stopped server stops the runner it adopted");
  } finally {
    await h.close();
  }
});

/** The runs a session's runner kept on disk because they ended while nobody listened. */
async function keptRuns(dataDir: string, ids: { userId: string; sessionId: string }): Promise<string[]> {
  return readdir(join(dataDir, "state", ids.userId, ids.sessionId, "finished-runs")).catch(() => []);
}

test("a run that ends while its server is down is not lost when its runner is gone before the server returns", async () => {
  const h = await startHarness();
  const ids = { userId: "alice", sessionId: "late-return" };
  try {
    const go = join(h.dataDir, "go");
    h.fake.push({ text: ["Started."], toolUses: [waitsFor(go)] }, { text: ["Finished ", "alone."] });
    const client = await startWaitingRun(h, ids.sessionId, "finish without me");
    const port = h.server.port;
    await h.server.stop("SIGKILL");
    await client.waitFor((c) => c.closed, 10_000, "the socket to drop");
    const runner = { pid: runnerPid(h.dataDir, ids) };

    // The run finishes with nobody listening: its runner writes it down.
    assert.deepEqual(await keptRuns(h.dataDir, ids), []);
    await writeFile(go, "");
    let kept: string[] = [];
    // Written to a temporary file first, then renamed: the run is kept once its .sse is there.
    await waitFor(async () => (kept = await keptRuns(h.dataDir, ids)).some((name) => name.endsWith(".sse")), "the runner to keep the run's end", { timeoutMs: 30_000 });
    assert.equal(kept.filter((name) => name.endsWith(".sse")).length, 1);
    // Then the runner goes (as its idle exit would have it) before the server comes back.
    process.kill(runner.pid, "SIGTERM");
    await until(() => !processAlive(runner.pid), "the runner to exit");

    h.server = await startHarnessServer({ dataDir: h.dataDir, env: h.env, port });
    const back = await h.connect(ids.sessionId);
    await back.waitForState(idle, 30_000, "the run to be settled");
    const assistant = back.state!.messages[1];
    assert.equal(assistant.content, "Started.\n\nFinished alone.");
    assert.equal(assistant.status, "complete");
    assert.match(assistant.toolCalls![0].output ?? "", /waited/);
    assert.ok(!back.state!.error, `no error: ${back.state!.error}`);
    await waitFor(async () => (await keptRuns(h.dataDir, ids)).length === 0, "the kept copy to be removed once read");

    // The conversation goes on, with the finished run in its history.
    h.fake.push({ text: "next" });
    const before = h.fake.requests.length;
    back.send({ type: "submit", prompt: "and now?" });
    await back.waitForState((s) => s.messages[3]?.status === "complete", 30_000, "the next run");
    assert.match(JSON.stringify(h.fake.requests[before].body.messages), /Finished alone\./);
    await back.close();
  } finally {
    await h.close();
  }
});
