// A server restarted after an upgrade finds runners of the code before it: it follows their run in
// flight to its end, but sends them no new query (their query body and events may be older ones).
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { killQuietly, MinimalClient, processAlive, startHarnessServer, storedSeq, waitFor } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-runner-version-");

function runnerPid(dataDir: string, ids: { userId: string; sessionId: string }): number | undefined {
  const db = new DatabaseSync(join(dataDir, "harness.db"));
  try {
    return (db.prepare("SELECT pid FROM runners WHERE user_id = ? AND session_id = ?").get(ids.userId, ids.sessionId) as { pid: number } | undefined)?.pid;
  } finally {
    db.close();
  }
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A server of "the code before" (its runners' stand-in version) killed with SIGKILL while session
 * bob/`sessionId`'s run, having streamed `text`, is held by the fake model until `release()`: its
 * runner, of that other version, lives on. */
async function killedUnderHeldRun(t: TestContext, sessionId: string, text: string[]) {
  const dataDir = await newDataDir();
  const ids = { userId: "bob", sessionId };
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  t.after(() => release());
  fake().push({ text, hold: held });
  const before = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_RUNNER_VERSION: "the-code-before" } });
  const client = await MinimalClient.connect(before.url, ids);
  client.send({ type: "submit", prompt: "long job" });
  await client.waitForState((s) => s.messages[1]?.content === text.join(""), 30_000, "the run's text");
  // Killed once the batched store has written what the client saw, as a running server would have.
  await waitFor(() => storedSeq(dataDir, ids) >= client.seq, "the run's text to be stored");
  await before.stop("SIGKILL");
  await client.waitFor((c) => c.closed);
  const old = runnerPid(dataDir, ids);
  if (old !== undefined) t.after(() => killQuietly(old));
  assert.ok(old !== undefined && processAlive(old), "the runner outlives the killed server");
  return { dataDir, ids, old, release };
}

test("a runner of another version, adopted mid-run, finishes its run but is not sent the next query", { timeout: 90_000 }, async (t) => {
  const { dataDir, ids, old, release } = await killedUnderHeldRun(t, "upgraded", ["half an ans", "wer"]);

  const server = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => server.stop());
  const again = await MinimalClient.connect(server.url, ids);
  t.after(() => {
    release();
    return again.close();
  });
  await again.waitForState((s) => s.status === "running", 15_000, "the run in flight to be followed");
  release();
  await again.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the run in flight to end");
  assert.equal(again.state!.messages[1].content, "half an answer");
  await until(() => !processAlive(old), "the runner of the other version to be stopped once its run ended");
  await server.waitForOutput(new RegExp(`runner ${old} .*another version`));

  fake().push({ text: "from the new code" });
  again.send({ type: "submit", prompt: "next" });
  await again.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete", 30_000, "the next run");
  assert.equal(again.state!.messages[3].content, "from the new code");
  const next = runnerPid(dataDir, ids);
  assert.ok(next !== undefined && next !== old, "the next query started a runner of the current version");
});

test("a runner of another version whose run ended while no server was there gives its end to the next server, which then stops it", { timeout: 90_000 }, async (t) => {
  const { dataDir, ids, old, release } = await killedUnderHeldRun(t, "ended-meanwhile", ["all of it"]);
  release();
  await new Promise((r) => setTimeout(r, 500));

  const server = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => server.stop());
  await until(() => !processAlive(old), "the idle runner of the other version to be stopped");
  const again = await MinimalClient.connect(server.url, ids);
  t.after(() => again.close());
  await again.waitForState((s) => s.status === "idle", 15_000, "the run to be written down");
  assert.equal(again.state!.messages[1].status, "complete");
  assert.equal(again.state!.messages[1].content, "all of it");
});

/** The row the server of `dataDir` keeps of `ids`'s runner. */
function storedRunner(dataDir: string, ids: { userId: string; sessionId: string }): { pid: number; url: string; token?: string } {
  const db = new DatabaseSync(join(dataDir, "harness.db"), { readOnly: true });
  try {
    const row = db.prepare("SELECT pid, url, token FROM runners WHERE user_id = ? AND session_id = ?").get(ids.userId, ids.sessionId) as { pid: number; url: string; token: string | null } | undefined;
    assert.ok(row, `a runner is recorded for ${ids.sessionId}`);
    return { pid: row.pid, url: row.url, ...(row.token !== null && { token: row.token }) };
  } finally {
    db.close();
  }
}

test("a runner of another version, idle for the session that adopts it, is not stopped under a run of it that no session has adopted yet", { timeout: 90_000 }, async (t) => {
  const dataDir = await newDataDir();
  const ids = { userId: "bob", sessionId: "idle-on-it" };
  fake().push({ text: "done" });
  const before = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_RUNNER_VERSION: "the-code-before" } });
  const client = await MinimalClient.connect(before.url, ids);
  client.send({ type: "submit", prompt: "quick job" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the first run");
  const runner = storedRunner(dataDir, ids);
  t.after(() => killQuietly(runner.pid));
  // A run on the same process that no session of the next server has adopted yet (a session whose
  // adoption lags): the process's own workspace stands in for it.
  const { promise: held, resolve: release } = Promise.withResolvers<void>();
  t.after(() => release());
  fake().push({ text: "the other run's answer", hold: held });
  const { createRunnerClient } = await import("@harness/runner/client");
  const { nodeTransport } = await import("@harness/runner/node-transport");
  const host = createRunnerClient(runner.url.replace(/\/workspaces\/[^/]+\/?$/, ""), { transport: nodeTransport(), token: runner.token });
  const requests = fake().requests.length;
  const events: string[] = [];
  const streamed = (async () => {
    for await (const event of host.query({ prompt: "another session's job", anthropicApiKey: "test-key" }, { signal: AbortSignal.timeout(60_000) })) events.push(event.type);
  })();
  streamed.catch(() => {});
  await fake().waitForRequests(requests + 1, 30_000);
  await before.stop("SIGKILL");
  await client.waitFor((c) => c.closed);

  const server = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => server.stop());
  const again = await MinimalClient.connect(server.url, ids);
  t.after(() => again.close());
  await until(() => new RegExp(`runner ${runner.pid} .*another version`).test(server.output()), "the runner to be adopted");
  await new Promise((r) => setTimeout(r, 1000));
  assert.ok(processAlive(runner.pid), "the runner lives on while a run of it is in flight");

  fake().push({ text: "from the new code" });
  again.send({ type: "submit", prompt: "next" });
  await again.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete", 30_000, "the next run");
  assert.equal(again.state!.messages[3].content, "from the new code");
  assert.notEqual(storedRunner(dataDir, ids).pid, runner.pid, "the next query went to a runner of this version");
  assert.ok(processAlive(runner.pid), "the runner of the other version still serves the run in flight");

  release();
  await streamed;
  assert.equal(events.at(-1), "run.completed", `the run in flight ends as it would have: ${events.join(", ")}`);
  await until(() => !processAlive(runner.pid), "the runner of the other version to be stopped once no run is in flight on it");
});
