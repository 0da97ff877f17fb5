// What a runner leaves behind when it is killed (SIGKILL, the out-of-memory killer): the commands
// its agents started and the socket files of its sandbox go with it, through the real server, its
// real runner processes, and the real Claude Code binary.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { sandboxUnavailable, stopSandbox } from "../packages/agent/src/sandbox/runtime.ts";
import { findClaudeCodeExecutable } from "@harness/runner";
import { claudeCodeRoute, killQuietly, MinimalClient, processAlive, startFakeAnthropic, startHarnessServer, type HarnessProcess } from "@harness/test-utils";

const timeout = 120_000;
const dirs: string[] = [];
const servers: HarnessProcess[] = [];
const marked: string[] = [];
after(async () => {
  for (const marker of marked) for (const pid of pidsRunning(marker)) killQuietly(pid);
  await Promise.all(servers.map((s) => s.stop()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  await stopSandbox();
});

/** The processes whose command line holds `marker`. */
function pidsRunning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) found.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function runnerPid(dataDir: string): number {
  const db = new DatabaseSync(join(dataDir, "harness.db"));
  try {
    return (db.prepare("SELECT pid FROM runners").get() as { pid: number }).pid;
  } finally {
    db.close();
  }
}

async function serve(backend: string, fakeUrl: string): Promise<{ server: HarnessProcess; dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-leftovers-"));
  dirs.push(dataDir);
  const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fakeUrl, HARNESS_BACKEND: backend } });
  servers.push(server);
  return { server, dataDir };
}

/** A command that sleeps for good, recognisable by `marker`. */
const sleeper = (marker: string) => `python3 -c 'import time; time.sleep(300)' ${marker}; echo done`;

const noClaudeCode = findClaudeCodeExecutable() ? false : "the Claude Code binary (@anthropic-ai/claude-agent-sdk-<platform>) is not installed";

test("a runner killed with SIGKILL takes the commands Claude Code started with it", { skip: noClaudeCode, timeout }, async (t) => {
  const fake = await startFakeAnthropic({ route: claudeCodeRoute });
  t.after(() => fake.close());
  const { server, dataDir } = await serve("claude-code", fake.url);
  const marker = `cc-orphan-${process.pid}-${Date.now()}`;
  marked.push(marker);
  fake.push({ toolUses: [{ name: "Bash", input: { command: sleeper(marker), description: "sleep" } }] }, { text: "done" });
  const client = await MinimalClient.connect(server.url, { userId: "alice", sessionId: "cc" });
  t.after(() => client.close());
  await client.waitForState(() => true);
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "sleep" });
  await until(() => pidsRunning(marker).length > 0, "the command to start", 60_000);

  process.kill(runnerPid(dataDir), "SIGKILL");
  await until(() => pidsRunning(marker).length === 0, "the command to end with its runner");
});

test("a runner killed while the server was down leaves no command running once a server starts again", { skip: noClaudeCode, timeout }, async (t) => {
  const fake = await startFakeAnthropic({ route: claudeCodeRoute });
  t.after(() => fake.close());
  const { server, dataDir } = await serve("claude-code", fake.url);
  const marker = `cc-orphan-restart-${process.pid}-${Date.now()}`;
  marked.push(marker);
  fake.push({ toolUses: [{ name: "Bash", input: { command: sleeper(marker), description: "sleep" } }] }, { text: "done" });
  const client = await MinimalClient.connect(server.url, { userId: "alice", sessionId: "cc" });
  await client.waitForState(() => true);
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "sleep" });
  await until(() => pidsRunning(marker).length > 0, "the command to start", 60_000);
  await server.stop("SIGKILL");
  await client.close();
  process.kill(runnerPid(dataDir), "SIGKILL");
  await new Promise((r) => setTimeout(r, 500));
  // Any harness server that starts on this machine ends the marked commands of runners that are
  // gone: one of another test file, running meanwhile, may have come first.
  if (pidsRunning(marker).length === 0) {
    t.diagnostic("another harness server on this machine ended the orphaned command first");
    return;
  }

  const again = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url, HARNESS_BACKEND: "claude-code" } });
  servers.push(again);
  await until(() => pidsRunning(marker).length === 0, "the command to be ended by the new server");
});

const sandboxOff = await sandboxUnavailable();

/** The sandbox's socket files in the system's temporary directory. */
const sandboxSockets = () => new Set(readdirSync(tmpdir()).filter((n) => /^(claude-(http|socks)-.*|srt-mux-.*)\.sock$/.test(n)));

test("a killed runner's socket files (its own and its sandbox's) are removed once the server notices, a live runner's are kept", { skip: sandboxOff ? `the sandbox cannot run here: ${sandboxOff}` : false, timeout }, async (t) => {
  const fake = await startFakeAnthropic();
  t.after(() => fake.close());
  const { server, dataDir } = await serve("builtin", fake.url);
  const workspace = join(dataDir, "workspaces", "bob", "sandboxed");
  mkdirSync(join(workspace, ".claude"), { recursive: true });
  writeFileSync(join(workspace, ".claude", "settings.json"), JSON.stringify({ sandbox: { enabled: true } }));
  const marker = `sandboxed-${process.pid}-${Date.now()}`;
  marked.push(marker);
  const before = sandboxSockets();
  fake.push({ toolUses: [{ name: "Bash", input: { command: sleeper(marker) } }] }, { text: "done" });
  const client = await MinimalClient.connect(server.url, { userId: "bob", sessionId: "sandboxed" });
  t.after(() => client.close());
  await client.waitForState(() => true);
  client.send({ type: "submit", prompt: "sleep" });
  await until(() => pidsRunning(marker).length > 0, "the sandboxed command to start", 60_000);
  const pid = runnerPid(dataDir);
  const runnersDir = join(dataDir, "runners", "bob");
  const own = [...sandboxSockets()].filter((n) => !before.has(n));
  assert.ok(own.length > 0, "the sandbox made its sockets");
  assert.ok(readdirSync(runnersDir).includes(`runner-${pid}.sock`));

  process.kill(pid, "SIGKILL");
  await until(() => pidsRunning(marker).length === 0, "the sandboxed command to end", 60_000);
  // Once the server has seen the run end with its runner, the session's next prompt starts a
  // runner again (sent sooner, it would meet the run still under way).
  await client.waitForState((s) => s.status !== "running", 60_000, "the killed run to end");
  fake.push({ text: "back" });
  client.send({ type: "submit", prompt: "again" });
  await client.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete", 60_000, "the next run");
  const left = sandboxSockets();
  assert.deepEqual(own.filter((n) => left.has(n)), [], "the dead runner's sandbox sockets are gone");
  const next = runnerPid(dataDir);
  assert.notEqual(next, pid);
  assert.deepEqual(readdirSync(runnersDir).filter((n) => n.endsWith(".sock")), [`runner-${next}.sock`], "only the live runner's socket is left");
  assert.ok(processAlive(next));
});
