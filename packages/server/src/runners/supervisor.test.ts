// The runner supervisor with real runner processes and the model faked at the wire.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { RunnerEvent } from "@harness/protocol";
import { createRunnerClient, RunnerHttpError, type RunnerTransport } from "@harness/runner/client";
import { nodeTransport } from "@harness/runner/node-transport";
import { runnerVersion } from "@harness/runner/version";
import { processAlive, startFakeAnthropic, type FakeAnthropic } from "@harness/test-utils";
import type { LogDetail } from "../log/writer.ts";
import { MAX_LOG_BYTES, spawnRunner } from "./process.ts";
import { createRunnerPool, type RunnerPool, type RunnerPoolOptions } from "./pool.ts";
import { createSupervisedRunner, type RunnerProcessInfo, type SupervisedRunner, type SupervisorOptions } from "./supervisor.ts";
import { tempDir, waitFor } from "../test-helpers.ts";

let fake: FakeAnthropic;
let dir: Awaited<ReturnType<typeof tempDir>>;
const runners: SupervisedRunner[] = [];
const pools: RunnerPool[] = [];

before(async () => {
  fake = await startFakeAnthropic();
  dir = await tempDir("harness-supervisor-");
});
after(async () => {
  await Promise.all(runners.map((r) => r.stop()));
  await Promise.all(pools.map((p) => p.close()));
  await fake.close();
  await dir.remove();
});

function pool(name: string, extra: Partial<RunnerPoolOptions> = {}): RunnerPool {
  const made = createRunnerPool({
    env: { ...process.env, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: fake.url },
    capacity: 1,
    dir: join(dir.path, `${name}.runners`),
    idleExitMs: 60_000,
    log: () => {},
    ...extra,
  });
  pools.push(made);
  return made;
}

function supervised(name: string, extra: Partial<SupervisorOptions> = {}): SupervisedRunner {
  const runner = createSupervisedRunner({
    workspace: join(dir.path, name),
    pool: extra.pool ?? pool(name),
    group: "user",
    member: name,
    credentials: async () => ({ anthropicApiKey: "key-per-query" }),
    idleMs: 60_000,
    log: () => {},
    ...extra,
  });
  runners.push(runner);
  return runner;
}

async function collect(runner: SupervisedRunner, prompt: string): Promise<RunnerEvent[]> {
  const events: RunnerEvent[] = [];
  for await (const event of runner.query({ prompt }, { signal: AbortSignal.timeout(30_000) })) events.push(event);
  return events;
}


test("the first query starts a runner in the session's workspace; the API key travels with the query only; the runner takes requests with its token only", async () => {
  const seen: (RunnerProcessInfo | undefined)[] = [];
  const runner = supervised("first", { onProcess: (info) => seen.push(info) });
  assert.equal(runner.pid(), undefined, "nothing runs before the first query");
  fake.push({ text: ["Hel", "lo"] });
  const before = fake.requests.length;
  const events = await collect(runner, "hi");
  assert.deepEqual(events.map((e) => e.type), ["run.started", "run.ready", "assistant.delta", "assistant.delta", "call.completed", "run.completed"]);
  assert.ok(existsSync(join(dir.path, "first")), "the workspace is created");
  assert.equal(fake.requests[before].headers["x-api-key"], "key-per-query");
  const token = seen[0]?.token;
  assert.match(token ?? "", /^[A-Za-z0-9_-]{43}$/, "the server made the runner a token");
  const transport = nodeTransport();
  const health = await createRunnerClient(runner.url()!, { token, transport }).health();
  assert.equal(health.hasAnthropicKey, false, "the runner's environment holds no key");
  for (const client of [createRunnerClient(runner.url()!, { transport }), createRunnerClient(runner.url()!, { token: "guessed", transport })]) {
    await assert.rejects(client.health(), (err: unknown) => err instanceof RunnerHttpError && err.status === 401 && /Authorization: Bearer/.test(err.message));
    await assert.rejects(async () => {
      for await (const event of client.query({ prompt: "run this" }, { signal: AbortSignal.timeout(5000) })) void event;
    }, (err: unknown) => err instanceof RunnerHttpError && err.status === 401);
  }
  const log = readFileSync(join(dir.path, "first.runners", "user", "runner-0.log"), "utf8");
  assert.ok(!log.includes(token!), "the token is not written to the runner's log");
});

test("a runner listens on a socket in its user's directory, or on loopback, whatever host or socket directory the server's environment names", async () => {
  const env = { ...process.env, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: fake.url, HARNESS_RUNNER_HOST: "0.0.0.0", HARNESS_RUNNER_SOCKET_DIR: dir.path };
  const onSocket = supervised("socket", { pool: pool("socket", { env }) });
  // A directory too deep for a socket's address.
  const deep = `loopback${"-".repeat(100)}`;
  const onLoopback = supervised(deep, { pool: pool(deep, { env }) });
  fake.push({ text: "hi" }, { text: "hi" });
  await collect(onSocket, "hi");
  await collect(onLoopback, "hi");
  const socketDir = join(dir.path, "socket.runners", "user");
  assert.ok(onSocket.url()!.startsWith(`http+unix://${encodeURIComponent(join(socketDir, "runner-"))}`), onSocket.url());
  assert.match(onLoopback.url()!, /^http:\/\/127\.0\.0\.1:\d+\//);
});

test("a runner is reused while healthy, restarted after it died (an error in the log), and stopped after being idle", async () => {
  const logged: string[] = [];
  const details = new Map<string, LogDetail | undefined>();
  const runner = supervised("lifecycle", { idleMs: 300, pool: pool("lifecycle", { log: (line, detail) => (logged.push(line), details.set(line, detail)) }) });
  fake.push({ text: "one" }, { text: "two" }, { text: "three" });
  await collect(runner, "one");
  const pid = runner.pid()!;
  await collect(runner, "two");
  assert.equal(runner.pid(), pid, "the same process serves the next query");

  process.kill(pid, "SIGKILL");
  await waitFor(() => !processAlive(pid), "the runner to die");
  await waitFor(() => logged.some((line) => line === `runner ${pid} was killed (SIGKILL) while serving`), "the server to log the death");
  assert.deepEqual(details.get(`runner ${pid} was killed (SIGKILL) while serving`), { level: "error", pid });
  const events = await collect(runner, "three");
  assert.equal(events.at(-1)?.type, "run.completed");
  const second = runner.pid()!;
  assert.notEqual(second, pid);

  await waitFor(() => runner.pid() === undefined && !processAlive(second), "the idle runner to stop");
});

test("a query whose runner process dies mid-run fails saying how it died and what it last printed", async () => {
  const runner = supervised("dies");
  fake.push({ text: ["half"], hold: new Promise(() => {}) });
  const events: RunnerEvent[] = [];
  const failed = (async () => {
    for await (const event of runner.query({ prompt: "go" }, { signal: AbortSignal.timeout(30_000) })) events.push(event);
  })();
  await waitFor(() => events.some((e) => e.type === "assistant.delta"), "the run to stream");
  // What a dying Node process prints last, as the runner's own output.
  writeFileSync(join(dir.path, "dies.runners", "user", "runner-0.log"), "FATAL ERROR: Reached heap limit Allocation failed\n", { flag: "a" });
  process.kill(runner.pid()!, "SIGKILL");
  await assert.rejects(failed, { message: "the runner process was killed (SIGKILL) during the run; its last output: FATAL ERROR: Reached heap limit Allocation failed" });
});

test("a query right after a run ended skips the health check; after a cancelled run it checks again", async () => {
  const asked: string[] = [];
  const inner = nodeTransport();
  const transport: RunnerTransport = (url, request) => {
    asked.push(`${request.method} ${new URL(url).pathname.replace(/^\/workspaces\/[^/]+/, "")}`);
    return inner(url, request);
  };
  const runner = supervised("fresh", { transport });
  let release = () => {};
  const hold = new Promise<void>((resolve) => (release = resolve));
  fake.push({ text: "one" }, { text: "two" }, { text: ["working"], hold }, { text: "four" });
  await collect(runner, "one");
  await collect(runner, "two");
  // A new runner is not asked (it has just opened the workspace); the second query is not either.
  assert.deepEqual(asked, ["PUT ", "POST /query", "POST /query"], "the second query went straight to the runner");

  asked.length = 0;
  const controller = new AbortController();
  await assert.rejects(async () => {
    for await (const event of runner.query({ prompt: "three" }, { signal: controller.signal })) if (event.type === "assistant.delta") controller.abort();
  });
  release();
  assert.equal((await collect(runner, "four")).at(-1)?.type, "run.completed");
  const next = asked.lastIndexOf("POST /query");
  assert.ok(next > 0 && asked.slice(1, next).includes("GET /health"), `after the cancel, the next query asked first: ${asked.join(", ")}`);
});

test("a runner that cannot start ends the query with an error that says so", async () => {
  const broken = join(dir.path, "broken-main.ts");
  await writeFile(broken, "process.stderr.write('') ; process.exit(3);\n");
  const runner = supervised("broken", { pool: pool("broken", { mainPath: broken }) });
  await assert.rejects(collect(runner, "hi"), /^Error: the runner failed to start: the runner exited \(code 3\) before it was ready \(see .*runner-0\.log\)$/);
});

test("stop() ends the runner process", async () => {
  const runner = supervised("stopped");
  fake.push({ text: "x" });
  await collect(runner, "hi");
  const pid = runner.pid()!;
  await runner.stop();
  assert.equal(processAlive(pid), false);
  await assert.rejects(collect(runner, "again"), /shutting down/);
});

/** The process group a process belongs to (Linux). */
function processGroup(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[2]);
}

test("a runner is started in its own process group with its output in a log file, and another supervisor can adopt it", async () => {
  const seen: (RunnerProcessInfo | undefined)[] = [];
  const logFile = join(dir.path, "adopt.runners", "user", "runner-0.log");
  // What earlier runners left, past the size a log may grow to: set aside, not appended to.
  mkdirSync(dirname(logFile), { recursive: true });
  writeFileSync(logFile, "old line\n".repeat(MAX_LOG_BYTES / 8));
  const first = supervised("adopt", { onProcess: (info) => seen.push(info) });
  fake.push({ text: "one" }, { text: "two" });
  await collect(first, "one");
  const pid = first.pid()!;
  assert.deepEqual(seen, [{ pid, url: first.url(), token: seen[0]?.token }]);
  assert.ok(seen[0]?.token, "the record carries the runner's token, to reach it after a restart");
  assert.match(first.url()!, /\/workspaces\/[A-Za-z0-9_-]+$/, "the session's URL is its workspace on the runner");
  assert.equal(processGroup(pid), pid, "it leads its own process group, so it does not die with its parent's");
  assert.match(readFileSync(logFile, "utf8"), /^\{"event":"listening"/);
  assert.equal(statSync(`${logFile}.1`).size, MAX_LOG_BYTES + MAX_LOG_BYTES / 8);

  // A new supervisor (as after a server restart) takes the same process over.
  const adopted: (RunnerProcessInfo | undefined)[] = [];
  const second = supervised("adopt", { adopt: seen[0], runnerVersion: runnerVersion({}), onProcess: (info) => adopted.push(info) });
  const events = await collect(second, "two");
  assert.equal(events.at(-1)?.type, "run.completed");
  assert.equal(second.pid(), pid, "the adopted runner served the query");
  await second.stop();
  assert.equal(processAlive(pid), false);
  assert.deepEqual(adopted, [{ pid, url: seen[0]!.url, token: seen[0]!.token }, undefined]);
});

test("an idle runner of another version is adopted only to be let go at once; the next query starts one of this version", async () => {
  const seen: (RunnerProcessInfo | undefined)[] = [];
  const older = pool("older", { env: { ...process.env, ANTHROPIC_API_KEY: undefined, ANTHROPIC_BASE_URL: fake.url, HARNESS_RUNNER_VERSION: "the-code-before" } });
  const first = supervised("older", { pool: older, onProcess: (info) => seen.push(info) });
  fake.push({ text: "one" }, { text: "two" });
  await collect(first, "one");
  const pid = first.pid()!;

  const lines: string[] = [];
  const adopted: (RunnerProcessInfo | undefined)[] = [];
  const second = supervised("older", { adopt: seen[0], runnerVersion: runnerVersion({}), log: (line) => lines.push(line), onProcess: (info) => adopted.push(info) });
  await waitFor(() => !processAlive(pid) && adopted.length === 2, "the runner of another version to be stopped and its record cleared");
  assert.ok(lines.some((l) => l.includes(`runner ${pid} adopted for ${join(dir.path, "older")} runs another version (the-code-before, this server's ${runnerVersion({})}): it is idle and let go`)), lines.join("\n"));
  assert.deepEqual(adopted, [seen[0], undefined]);
  const events = await collect(second, "two");
  assert.equal(events.at(-1)?.type, "run.completed");
  assert.notEqual(second.pid(), pid, "a runner of this version served the query");
});

test("a recorded runner that does not answer is not adopted: its record is cleared and a new one starts", async () => {
  const seen: (RunnerProcessInfo | undefined)[] = [];
  const runner = supervised("stale", { adopt: { pid: 2 ** 22 + 11, url: "http://127.0.0.1:9" }, onProcess: (info) => seen.push(info) });
  fake.push({ text: "fresh" });
  await collect(runner, "hi");
  assert.equal(seen[0], undefined);
  assert.equal(seen[1]?.pid, runner.pid());
  await assert.rejects(async () => {
    for await (const _ of runner.attach("no-such-run", 0, { signal: AbortSignal.timeout(10_000) })) {
      // The runner does not know the run.
    }
  });
});

test("the sessions of one group share runner processes up to the capacity; other groups get their own", async () => {
  const shared = pool("shared", { capacity: 2 });
  const [a, b, c] = ["share-a", "share-b", "share-c"].map((name) => supervised(name, { pool: shared }));
  const other = supervised("share-other", { pool: shared, group: "someone-else" });
  fake.push({ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" });
  for (const runner of [a, b, c, other]) assert.equal((await collect(runner, "hi")).at(-1)?.type, "run.completed");
  assert.equal(a.pid(), b.pid(), "two sessions of a group share a process");
  assert.notEqual(c.pid(), a.pid(), "the third does not fit: a second process serves it");
  assert.notEqual(other.pid(), a.pid());
  assert.notEqual(other.pid(), c.pid(), "another group never shares");
  assert.notEqual(a.url(), b.url(), "each session has its own workspace on the shared process");
  assert.ok(existsSync(join(dir.path, "share-a")) && existsSync(join(dir.path, "share-b")));

  // Releasing one session keeps the process for the other; releasing the last stops it.
  const pid = a.pid()!;
  await a.stop();
  assert.equal(processAlive(pid), true);
  fake.push({ text: "still" });
  assert.equal((await collect(b, "again")).at(-1)?.type, "run.completed");
  await b.stop();
  assert.equal(processAlive(pid), false);
});

test("when a shared process dies, each of its sessions gets a new one on its next query", async () => {
  const shared = pool("crash", { capacity: 5 });
  const [a, b] = ["crash-a", "crash-b"].map((name) => supervised(name, { pool: shared }));
  fake.push({ text: "1" }, { text: "2" });
  await collect(a, "hi");
  await collect(b, "hi");
  const pid = a.pid()!;
  assert.equal(b.pid(), pid);
  process.kill(pid, "SIGKILL");
  await waitFor(() => !processAlive(pid) && a.pid() === undefined && b.pid() === undefined, "both sessions to notice");
  fake.push({ text: "3" }, { text: "4" });
  await Promise.all([collect(a, "again"), collect(b, "again")]);
  assert.notEqual(a.pid(), pid);
  assert.equal(a.pid(), b.pid(), "started once, shared again");
});

test("sessions that let go of a shared runner process leave no listener on it: a busy process outlives many sessions", async () => {
  let listening = 0;
  const shared = pool("shared-exit", {
    capacity: 10,
    spawn: async (options) => {
      const proc = await spawnRunner(options);
      const onExit = proc.onExit;
      proc.onExit = (listener) => {
        listening++;
        const off = onExit(listener);
        return () => {
          listening--;
          off();
        };
      };
      return proc;
    },
  });
  const keeper = supervised("keeper", { pool: shared });
  fake.push({ text: "kept" });
  await collect(keeper, "hi");
  for (let i = 0; i < 5; i++) {
    const passing = supervised(`passing-${i}`, { pool: shared });
    fake.push({ text: "bye" });
    await collect(passing, "hi");
    await passing.stop();
  }
  assert.equal(listening, 1, "only the session that still holds the process listens for its exit");
  assert.ok(processAlive(keeper.pid()!));
});

/** A transport that kills the runner process a request goes to just before the request leaves,
 * for the requests `when` picks: the runner dies before it could take the request, and the server
 * has not yet heard of its exit. */
function killingBefore(when: (method: string, path: string) => boolean, pidOf: () => number | undefined): { transport: RunnerTransport; asked: string[] } {
  const inner = nodeTransport();
  const asked: string[] = [];
  const transport: RunnerTransport = (url, request) => {
    const path = new URL(url).pathname.replace(/^\/workspaces\/[^/]+/, "");
    asked.push(`${request.method} ${path}`);
    const pid = pidOf();
    if (pid !== undefined && when(request.method, path)) process.kill(pid, "SIGKILL");
    return inner(url, request);
  };
  return { transport, asked };
}

test("a query whose runner died between runs, before the server heard of it, goes once to a new runner", async () => {
  const logged: string[] = [];
  let runner: SupervisedRunner | undefined;
  let kills = 0;
  const { transport } = killingBefore((method, path) => method === "POST" && path === "/query" && ++kills === 2, () => runner?.pid());
  runner = supervised("died-between", { transport, log: (line) => logged.push(line) });
  fake.push({ text: "one" }, { text: "two" });
  await collect(runner, "one");
  const pid = runner.pid()!;
  const calls = fake.requests.length;
  const events = await collect(runner, "two");
  assert.deepEqual(events.map((e) => e.type), ["run.started", "run.ready", "assistant.delta", "call.completed", "run.completed"]);
  assert.equal(fake.requests.length, calls + 1, "the prompt reached the model once");
  assert.notEqual(runner.pid(), pid, "a new runner answered");
  assert.equal(processAlive(pid), false);
  assert.ok(logged.some((line) => line.startsWith(`runner ${pid} did not take the query`)), logged.join("\n"));
});

test("a runner that dies each time a query reaches it is replaced once, then the query fails saying so", async () => {
  let runner: SupervisedRunner | undefined;
  const { transport, asked } = killingBefore((method, path) => method === "POST" && path === "/query", () => runner?.pid());
  runner = supervised("dies-at-query", { transport });
  const calls = fake.requests.length;
  await assert.rejects(collect(runner, "hi"), {
    message: "the query reached no runner: the runner process was killed (SIGKILL), and the one started in its place was killed (SIGKILL) before it took it",
  });
  assert.equal(asked.filter((line) => line === "POST /query").length, 2, asked.join(", "));
  assert.equal(fake.requests.length, calls, "no model call was made");
});

test("a rewind whose runner died before it took it is answered by a new runner", async () => {
  let runner: SupervisedRunner | undefined;
  let rewinds = 0;
  const { transport } = killingBefore((method, path) => method === "POST" && path === "/rewind" && ++rewinds === 1, () => runner?.pid());
  runner = supervised("rewind-died", { transport, stateDir: join(dir.path, "rewind-died.state") });
  fake.push({ text: "done" });
  for await (const event of runner.query({ prompt: "hi", userMessageId: "u1" }, { signal: AbortSignal.timeout(30_000) })) void event;
  const pid = runner.pid()!;
  const answer = await runner.rewind({ userMessageId: "u1", dryRun: true });
  assert.deepEqual(answer, { ok: true, value: { dryRun: true, files: [] } }, "the run's checkpoint, kept in the state directory, was found by the new runner");
  assert.notEqual(runner.pid(), pid);
});

test("the background shells are asked of the runner that serves the session, never of one started for it; a watch given up on lets the idle runner go", async () => {
  const runner = supervised("shells", { idleMs: 300 });
  const none = await runner.shells!(undefined, { signal: AbortSignal.timeout(10_000) });
  assert.deepEqual(none, { ok: false, status: 404, message: "the runner of this session is not running" });
  assert.deepEqual(await runner.killShell!("abcdef"), { ok: false, status: 404, message: "the runner of this session is not running" });
  assert.equal(runner.pid(), undefined, "no runner was started to ask");

  fake.push({ text: "up" });
  await collect(runner, "up");
  const listed = await runner.shells!(undefined, { signal: AbortSignal.timeout(10_000) });
  assert.ok(listed.ok);
  assert.deepEqual(listed.value.shells, []);
  const unknown = await runner.killShell!("abcdef");
  assert.equal(unknown.ok, false);
  assert.equal(!unknown.ok && unknown.status, 404);

  const controller = new AbortController();
  const watching = runner.shells!(listed.value.version, { signal: controller.signal });
  controller.abort();
  assert.equal((await watching).ok, false);
  const pid = runner.pid()!;
  await waitFor(() => runner.pid() === undefined, "the idle runner to be let go");
  assert.ok(pid > 0);
});
