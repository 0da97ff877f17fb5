// Stopping a server (SIGTERM from systemd or docker, Ctrl-C) with HARNESS_STOP_GRACE_MS: the runs in
// flight are given that long to finish, no new run starts meanwhile, and only the runs still going
// at its end are written down as interrupted.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MinimalClient, startHarnessServer, steerQueued, waitFor } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-stop-grace-");

/** A server with a 30 s grace whose session ann/long has a run in flight, held after its first
 * words until `release()`; SIGTERM sent, the server waiting for it (logged). */
async function stoppingWithRunInFlight(t: TestContext) {
  const dataDir = await newDataDir();
  let release!: () => void;
  fake().push({ text: ["half "], hold: new Promise<void>((resolve) => (release = resolve)) });
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_STOP_GRACE_MS: "30000" } });
  t.after(() => server.stop());
  const worker = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "long" });
  t.after(() => worker.close());
  worker.send({ type: "submit", prompt: "long job" });
  await worker.waitForState((s) => s.messages[1]?.content === "half ", 30_000, "the run's first words");
  const healthy = await fetch(`${server.url}/healthz`);
  assert.deepEqual([healthy.status, await healthy.json()], [200, { ok: true }]);
  const exited = server.stop("SIGTERM");
  await waitFor(() => /waiting up to 30 s for 1 run in flight/.test(server.output()), "the wait to be logged");
  return { dataDir, server, worker, release, exited };
}

test("a stopped server lets the run in flight finish within the grace, refusing new runs meanwhile", async (t) => {
  const { dataDir, server, worker, release, exited } = await stoppingWithRunInFlight(t);
  const other = await MinimalClient.connect(server.url, { userId: "bob", sessionId: "late" });
  t.after(() => other.close());
  other.send({ type: "submit", prompt: "new job" });
  await other.waitForErrors(1);
  assert.match(other.errors[0].message, /the server is stopping/);
  assert.equal(other.errors[0].code, "stopping");
  assert.equal(other.state?.status, "idle", "no run started");

  release();
  await worker.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 15_000, "the run to finish");
  assert.equal(await exited, 0);
  assert.doesNotMatch(server.output(), /interrupted/);

  const again = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => again.stop());
  const back = await MinimalClient.connect(again.url, { userId: "ann", sessionId: "long" });
  t.after(() => back.close());
  await back.waitForState(() => true);
  assert.equal(back.state!.messages[1].status, "complete");
  assert.equal(back.state!.messages[1].content, "half ");
});

test("a run still going when the grace ends is written down as interrupted", async (t) => {
  const dataDir = await newDataDir();
  fake().push({ text: ["forever "], hold: new Promise(() => {}) });
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_STOP_GRACE_MS: "500" } });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "stuck" });
  t.after(() => client.close());
  client.send({ type: "submit", prompt: "never ends" });
  await client.waitForState((s) => s.messages[1]?.content === "forever ", 30_000, "the run's first words");
  assert.equal(await server.stop("SIGTERM"), 0);
  assert.match(server.output(), /session ann\/stuck: run failed: Run interrupted: the server stopped before it finished/);
});

test("while it waits for the runs in flight, a stopping server answers health checks 503 and still lets clients in to watch", async (t) => {
  const { server, release, exited } = await stoppingWithRunInFlight(t);
  const healthz = await fetch(`${server.url}/healthz`);
  assert.equal(healthz.status, 503, "a load balancer sends no one new here");
  assert.deepEqual(await healthz.json(), { ok: false, stopping: true, error: "the server is stopping: it lets the runs in flight finish and starts none" });
  const health = await fetch(`${server.url}/health`);
  assert.equal(health.status, 503);
  assert.deepEqual(await health.json(), {
    ok: false,
    stopping: true,
    error: "the server is stopping: it lets the runs in flight finish and starts none",
    sessions: 1,
    clients: 1,
    runs: 1,
  });

  // One who reconnects (another tab, a dropped connection) watches the run to its end.
  const watcher = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "long" });
  const newcomer = await MinimalClient.connect(server.url, { userId: "bob", sessionId: "fresh" });
  t.after(() => Promise.all([watcher.close(), newcomer.close()]));
  await watcher.waitForState((s) => s.status === "running" && s.messages[1]?.content === "half ", 15_000, "the run in flight");
  await newcomer.waitForState(() => true);
  newcomer.send({ type: "submit", prompt: "new job" });
  await newcomer.waitForErrors(1);
  assert.equal(newcomer.errors[0].code, "stopping");

  release();
  await watcher.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 15_000, "the run to finish");
  assert.equal(await exited, 0);
});

test("a steer the run ends without while the server is stopping starts no run: its sender is told, code stopping", async (t) => {
  const dataDir = await newDataDir();
  // The reply is done; the Stop hook then holds the run's end (until `go` is there), past the
  // loop's last look at the steers: a steer sent meanwhile is left over when the run completes.
  const settings = join(dataDir, "home", ".claude");
  const go = join(dataDir, "hook.go");
  await mkdir(settings, { recursive: true });
  await writeFile(join(settings, "settings.json"), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: "command", command: `while [ ! -e ${go} ]; do sleep 0.05; done` }] }] } }));
  fake().push({ text: ["done"] });
  const asked = fake().requests.length;
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_STOP_GRACE_MS: "30000" } });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "steered" });
  t.after(() => client.close());
  client.send({ type: "submit", prompt: "a job" });
  await client.waitForState((s) => s.messages[1]?.content === "done", 30_000, "the reply");

  const exited = server.stop("SIGTERM");
  await waitFor(() => /waiting up to 30 s for 1 run in flight/.test(server.output()), "the wait to be logged");
  client.send({ type: "steer", message: "and then this" });
  await client.waitForState(steerQueued, 15_000, "the run to hold the steer");
  await writeFile(go, "");
  await client.waitForErrors(1, 15_000);
  assert.equal(client.errors[0].code, "stopping");
  assert.match(client.errors[0].message, /^steer "and then this" was not delivered: the run ended before the model read it, and the server is stopping/);
  assert.equal(await exited, 0);
  assert.equal(client.state!.status, "idle");
  assert.deepEqual(client.state!.messages.map((m) => [m.role, m.content]), [["user", "a job"], ["assistant", "done"]], "no run started with the steer");
  assert.equal(fake().requests.length, asked + 1, "the model never read it");
});
