// /cost reports the whole conversation whichever runner process answers it: a session's runs move
// to another runner when its place is given back after HARNESS_RUNNER_IDLE_MS, or when its runner
// died, and the totals the session keeps go with the next query.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MinimalClient, processAlive, startHarnessServer, storedRunnerPid, waitFor, type MinimalState } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-cost-");

async function serve(t: { after(fn: () => unknown): void }, extraEnv: Record<string, string> = {}) {
  const dataDir = await newDataDir();
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), ...extraEnv } });
  t.after(() => server.stop("SIGKILL"));
  return { dataDir, server };
}

/** Runs a prompt the fake model answers with 1000 input and 100 output tokens ($0.0045 at $3 and
 * $15 a million tokens). */
async function firstRun(client: MinimalClient): Promise<void> {
  fake().push({ text: "first answer", usage: { input_tokens: 1000, output_tokens: 100 } });
  client.send({ type: "submit", prompt: "hello" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the first run");
}

/** /cost's answer, checked to need no model call. */
async function costReport(client: MinimalClient): Promise<{ report: string; state: MinimalState }> {
  const calls = fake().requests.length;
  const at = client.state!.messages.length + 1;
  client.send({ type: "submit", prompt: "/cost" });
  await client.waitForState((s) => s.status === "idle" && s.messages[at]?.status === "complete", 30_000, "/cost to answer");
  const state = client.state!;
  assert.equal(fake().requests.length, calls, "the report needs no model call");
  return { report: String(state.messages[at]!.content), state };
}

function assertWholeConversation(report: string, state: MinimalState): void {
  assert.match(report, /Total cost:\s+\$0\.0045/);
  assert.match(report, /Model calls:\s+1\b/);
  assert.match(report, /1\.0k input, 100 output/);
  const usage = (state as { usage?: { inputTokens: number; outputTokens: number; costUsd?: number } }).usage;
  assert.equal(usage?.inputTokens, 1000, "the session's usage says the same");
  assert.equal(usage?.outputTokens, 100);
  assert.equal(usage?.costUsd?.toFixed(4), "0.0045");
}

test("/cost after the session's runner was given back for idleness counts the runs of the runner before", async (t) => {
  const { dataDir, server } = await serve(t, { HARNESS_RUNNER_IDLE_MS: "1000" });
  const ids = { userId: "bob", sessionId: "idle-cost" };
  const client = await MinimalClient.connect(server.url, ids);
  await firstRun(client);
  const pid = storedRunnerPid(dataDir, ids);
  assert.ok(pid !== undefined, "a runner served the run");
  await waitFor(() => storedRunnerPid(dataDir, ids) === undefined && !processAlive(pid), "the idle runner to be given back and exit", { timeoutMs: 15_000 });

  const { report, state } = await costReport(client);
  assert.notEqual(storedRunnerPid(dataDir, ids), pid, "another runner answered");
  assertWholeConversation(report, state);
  await client.close();
});

test("/cost after the session's runner died counts the runs of the runner that died", async (t) => {
  const { dataDir, server } = await serve(t);
  const ids = { userId: "bob", sessionId: "died-cost" };
  const client = await MinimalClient.connect(server.url, ids);
  await firstRun(client);
  const pid = storedRunnerPid(dataDir, ids)!;
  process.kill(pid, "SIGKILL");
  // The server hears of the exit (and forgets the runner) before the next prompt.
  await waitFor(() => !processAlive(pid) && storedRunnerPid(dataDir, ids) === undefined, "the server to see the runner die", { timeoutMs: 15_000 });

  const { report, state } = await costReport(client);
  assertWholeConversation(report, state);
  await client.close();
});

test("/cost on another runner counts a cancelled run whose end came after the cancel", async (t) => {
  const { dataDir, server } = await serve(t);
  const ids = { userId: "bob", sessionId: "cancelled-cost" };
  const client = await MinimalClient.connect(server.url, ids);
  await firstRun(client);
  // A second call (2000 in, 200 out: $0.009) asks for a command that waits until cancelled.
  fake().push({ text: "working", toolUses: [{ name: "Bash", input: { command: "sleep 60" } }], usage: { input_tokens: 2000, output_tokens: 200 } });
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "long job" });
  await client.waitForState((s) => s.messages[3]?.toolCalls?.[0]?.status === "running", 30_000, "the command to start");
  client.send({ type: "cancel" });
  const usage = () => (client.state as { usage?: { inputTokens: number } }).usage;
  await client.waitFor(() => usage()?.inputTokens === 3000, 30_000, "the cancelled run's end to be counted");
  const pid = storedRunnerPid(dataDir, ids)!;
  process.kill(pid, "SIGKILL");
  await waitFor(() => !processAlive(pid) && storedRunnerPid(dataDir, ids) === undefined, "the server to see the runner die", { timeoutMs: 15_000 });

  const { report } = await costReport(client);
  assert.match(report, /Total cost:\s+\$0\.0135/);
  assert.match(report, /Model calls:\s+2\b/);
  assert.match(report, /3\.0k input, 300 output/);
  await client.close();
});
