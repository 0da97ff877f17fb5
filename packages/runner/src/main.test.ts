import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeAnthropic } from "@harness/test-utils";
import { createRunnerClient } from "./client/client.ts";
import { nodeTransport } from "./client/node-transport.ts";
import { runnerVersion } from "./version.ts";

const mainPath = fileURLToPath(new URL("./main.ts", import.meta.url));

type Runner = { child: ChildProcessWithoutNullStreams; url: string; stdout: () => string; stderr: () => string; exited: Promise<number | null> };

async function spawnRunner(t: { after(fn: () => unknown): void }, env: Record<string, string>, args = ["--exit-with-stdin"], stdin?: string): Promise<Runner> {
  const child = spawn(process.execPath, [mainPath, ...args], {
    env: { ...process.env, HARNESS_RUNNER_PORT: "0", ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  if (stdin !== undefined) child.stdin.write(stdin);
  const exited = once(child, "exit").then(([code]) => code as number | null);
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let out = "";
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  child.stdout.setEncoding("utf8");
  const firstLine = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (d: string) => {
      out += d;
      if (out.includes("\n")) resolve(out.slice(0, out.indexOf("\n")));
    });
    child.once("exit", (code) => reject(new Error(`runner exited with ${code} before listening: ${err}`)));
  });
  const line = await firstLine;
  const parsed = JSON.parse(line) as { event: string; url: string };
  assert.equal(parsed.event, "listening");
  assert.match(parsed.url, /^(http:\/\/127\.0\.0\.1:\d+|http\+unix:\/\/[^/]+)$/);
  return { child, url: parsed.url, stdout: () => out, stderr: () => err, exited };
}

test("the runner process prints one listening line, serves, and exits when its stdin closes", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-main-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const workspace = join(dir, "nested", "workspace");
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: workspace, ANTHROPIC_API_KEY: "" });

  assert.ok(existsSync(workspace), "the workspace is created");
  const health = await createRunnerClient(runner.url).health();
  assert.deepEqual(health, { ok: true, busy: false, hasAnthropicKey: false, version: runnerVersion({}) });
  assert.match(health.version!, /^[0-9a-f]{16}$/, "a hash of its sources");

  runner.child.stdin.end();
  assert.equal(await runner.exited, 0);
  assert.equal(runner.stdout().trim().split("\n").length, 1, "exactly one line on stdout");
});

test("the runner's version is a hash of its packages' sources, which HARNESS_RUNNER_VERSION stands in for (tests), and changes with them", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-version-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: join(dir, "workspace"), HARNESS_RUNNER_VERSION: "the-code-before" });
  assert.equal((await createRunnerClient(runner.url).health()).version, "the-code-before");
  runner.child.stdin.end();
  await runner.exited;
  assert.throws(() => runnerVersion({ HARNESS_RUNNER_VERSION: "two words" }), /HARNESS_RUNNER_VERSION must be 1 to 128 printable ASCII characters without spaces, got "two words"/);

  // A copy of the sources hashes as they do, and otherwise once a file of them changes.
  const packages = fileURLToPath(new URL("../../", import.meta.url));
  for (const name of ["protocol", "llm", "agent", "runner", "startup"]) {
    cpSync(join(packages, name, "src"), join(dir, "packages", name, "src"), { recursive: true });
    cpSync(join(packages, name, "package.json"), join(dir, "packages", name, "package.json"));
  }
  const versionIn = () => execFileSync(process.execPath, ["--input-type=module", "-e", `import { runnerVersion } from ${JSON.stringify(join(dir, "packages", "runner", "src", "version.ts"))}; console.log(runnerVersion({}))`], { encoding: "utf8" }).trim();
  assert.equal(versionIn(), runnerVersion({}));
  appendFileSync(join(dir, "packages", "agent", "src", "index.ts"), "\n// changed\n");
  assert.notEqual(versionIn(), runnerVersion({}));
});

for (const [how, stop] of [
  ["its stdin closes (the server that started it died)", (child: ChildProcessWithoutNullStreams) => child.stdin.end()],
  ["it gets SIGTERM from outside", (child: ChildProcessWithoutNullStreams) => child.kill("SIGTERM")],
] as const) {
  test(`a runner stopped mid-run because ${how} ends the run saying so (not "cancelled") and exits 0`, async (t) => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const fake = await startFakeAnthropic({ replies: [{ text: ["Working", "..."], hold }] });
    t.after(async () => {
      release();
      await fake.close();
    });
    const dir = mkdtempSync(join(tmpdir(), "harness-runner-main-"));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const runner = await spawnRunner(t, { HARNESS_WORKSPACE: dir, ANTHROPIC_API_KEY: "", ANTHROPIC_BASE_URL: fake.url });
    const client = createRunnerClient(runner.url);

    const seen: string[] = [];
    for await (const e of client.query({ prompt: "work", anthropicApiKey: "k" }, { signal: new AbortController().signal })) {
      seen.push(e.type === "assistant.delta" ? e.text : e.type === "run.error" ? `run.error: ${e.message}` : e.type);
      if (seen.includes("...")) stop(runner.child);
    }
    // The call it stopped was billed for what had streamed, and is reported so.
    assert.deepEqual(seen, ["run.started", "run.ready", "Working", "...", "call.completed", "run.error: the runner process was stopped during the run"]);
    assert.equal(await runner.exited, 0);
  });
}

test("the runner process exits 0 on SIGTERM", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-main-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: dir, ANTHROPIC_API_KEY: "sk-test" });
  assert.equal((await createRunnerClient(runner.url).health()).hasAnthropicKey, true);
  runner.child.kill("SIGTERM");
  assert.equal(await runner.exited, 0);
});

test("with HARNESS_RUNNER_SOCKET_DIR the runner listens on a socket only its user may open, and removes it when it exits", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-main-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: dir, HARNESS_RUNNER_SOCKET_DIR: dir, ANTHROPIC_API_KEY: "sk-test" });
  const socket = join(dir, `runner-${runner.child.pid}.sock`);
  assert.equal(runner.url, `http+unix://${encodeURIComponent(socket)}`);
  assert.ok(statSync(socket).isSocket());
  assert.equal(statSync(socket).mode & 0o777, 0o600);

  assert.equal((await createRunnerClient(runner.url, { transport: nodeTransport() }).health()).hasAnthropicKey, true);
  // fetch has no Unix sockets: the client says so rather than failing on an unknown scheme.
  await assert.rejects(createRunnerClient(runner.url).health(), /cannot reach the runner at http\+unix:.*fetch cannot reach a runner on a Unix socket/);

  runner.child.kill("SIGTERM");
  assert.equal(await runner.exited, 0);
  assert.equal(existsSync(socket), false, "the socket is removed");
});

test("a socket directory that does not exist: the runner refuses to start, naming the socket", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-main-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const missing = join(dir, "missing");
  const child = spawn(process.execPath, [mainPath], { env: { ...process.env, HARNESS_WORKSPACE: dir, HARNESS_RUNNER_SOCKET_DIR: missing } });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const [code] = await once(child, "close");
  assert.equal(code, 1);
  assert.equal(err, `harness-runner: cannot listen on ${join(missing, `runner-${child.pid}.sock`)}: HARNESS_RUNNER_SOCKET_DIR ${missing} does not exist\n`);
});

test("a socket directory too deep for a socket address: the runner listens on loopback instead", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-main-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const deep = join(dir, "d".repeat(60), "e".repeat(60));
  mkdirSync(deep, { recursive: true });
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: dir, HARNESS_RUNNER_SOCKET_DIR: deep, ANTHROPIC_API_KEY: "" });
  assert.match(runner.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal((await createRunnerClient(runner.url).health()).ok, true);
});

test("the runner process refuses a bad port with one line on stderr", async () => {
  for (const port of ["nope", "0x10", " 80", "65536", "1e3"]) {
    const child = spawn(process.execPath, [mainPath], { env: { ...process.env, HARNESS_RUNNER_PORT: port } });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const [code] = await once(child, "exit");
    assert.equal(code, 1, port);
    assert.equal(err, `harness-runner: HARNESS_RUNNER_PORT must be a port number (0 to 65535), got "${port}"\n`);
  }
});

test("a runner left alone exits by itself after HARNESS_RUNNER_IDLE_EXIT_MS, but not while a run is in flight", async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  const fake = await startFakeAnthropic({ replies: [{ text: ["Working"], hold }] });
  t.after(async () => {
    release();
    await fake.close();
  });
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-main-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // No --exit-with-stdin: nothing but the idle timer ends this runner.
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: dir, HARNESS_RUNNER_IDLE_EXIT_MS: "400", ANTHROPIC_BASE_URL: fake.url, HOME: dir }, []);
  const client = createRunnerClient(runner.url);
  let exitedEarly = false;
  void runner.exited.then(() => (exitedEarly = true));

  const seen: string[] = [];
  for await (const e of client.query({ prompt: "work", anthropicApiKey: "k" }, { signal: new AbortController().signal })) {
    seen.push(e.type);
    if (e.type === "assistant.delta") {
      // Several idle periods pass while the model holds the run open.
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(exitedEarly, false, "the runner must not exit while a run is in flight");
      release();
    }
  }
  assert.equal(seen.at(-1), "run.completed");
  assert.equal(await runner.exited, 0);
  assert.match(runner.stderr(), /no run and no request for 400 ms; exiting/);
});

test("a runner whose run waits for an approval nobody can give (its server gone, no stream open) exits once idle", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-main-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fake = await startFakeAnthropic({ replies: [{ toolUses: [{ name: "Write", input: { file_path: join(dir, "note.txt"), content: "hi" } }] }] });
  t.after(() => fake.close());
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: dir, HARNESS_RUNNER_IDLE_EXIT_MS: "400", ANTHROPIC_BASE_URL: fake.url, HOME: dir }, []);
  const client = createRunnerClient(runner.url);
  // Read until the run asks, then go away without cancelling it, as a killed server does.
  for await (const e of client.query({ prompt: "run it", anthropicApiKey: "k", permissionMode: "default", interactive: true }, { signal: new AbortController().signal, keepRunning: true })) {
    if (e.type === "approval.requested") break;
  }
  const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("still running"), 5000).unref());
  assert.equal(await Promise.race([runner.exited, timeout]), 0);
  assert.match(runner.stderr(), /no run and no request for 400 ms; exiting/);
});

test("the runner process refuses an unknown HARNESS_BACKEND or a bad idle time", async () => {
  for (const [env, message] of [
    [{ HARNESS_BACKEND: "gpt" }, 'harness-runner: HARNESS_BACKEND must be one of builtin, claude-code, got "gpt"\n'],
    [{ HARNESS_RUNNER_IDLE_EXIT_MS: "soon" }, 'harness-runner: HARNESS_RUNNER_IDLE_EXIT_MS must be a whole number of milliseconds (0: never), got "soon"\n'],
  ] as const) {
    const child = spawn(process.execPath, [mainPath], { env: { ...process.env, ...env } });
    let err = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const [code] = await once(child, "exit");
    assert.equal(code, 1);
    assert.equal(err, message);
  }
});

test("a runner started with HARNESS_RUNNER_TOKEN answers only requests that carry it, and no tool sees it", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-token-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const fake = await startFakeAnthropic({
    replies: [{ toolUses: [{ id: "toolu_env", name: "Bash", input: { command: 'echo "token=[$HARNESS_RUNNER_TOKEN]"' } }] }, { text: "done" }],
  });
  t.after(() => fake.close());
  const token = "s3cret-token_value";
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: dir, HARNESS_RUNNER_TOKEN: token, ANTHROPIC_BASE_URL: fake.url, HOME: dir });

  for (const headers of [{}, { authorization: "Bearer wrong" }, { authorization: token }] as Record<string, string>[]) {
    const res = await fetch(`${runner.url}/health`, { headers });
    assert.equal(res.status, 401, JSON.stringify(headers));
    assert.match(((await res.json()) as { error: string }).error, /Authorization: Bearer/);
  }
  const put = await fetch(`${runner.url}/workspaces/w1`, { method: "PUT", headers: { "content-type": "application/json" }, body: JSON.stringify({ workspace: join(dir, "w1") }) });
  assert.equal(put.status, 401, "opening a workspace needs the token too");

  const client = createRunnerClient(runner.url, { token });
  assert.equal((await client.health()).ok, true);
  const events = [];
  for await (const event of client.query({ prompt: "show the env", anthropicApiKey: "k", permissionMode: "bypassPermissions" }, { signal: AbortSignal.timeout(20_000) })) events.push(event);
  const done = events.find((e) => e.type === "tool.completed") as { output: string } | undefined;
  assert.equal(done?.output.trim(), "token=[]", "the token is not in the environment of the runner's tools");
  assert.equal(events.at(-1)?.type, "run.completed");
});

test("a runner without a token on a loopback address answers only requests made for a loopback name (no DNS rebinding)", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-host-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: dir, HOME: dir });
  const { port } = new URL(runner.url);
  const health = (host: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get({ host: "127.0.0.1", port, path: "/health", headers: { host } }, (res) => {
        let body = "";
        res.setEncoding("utf8").on("data", (d: string) => (body += d)).on("end", () => resolve({ status: res.statusCode!, body }));
      });
      req.on("error", reject);
    });
  const refused = await health(`attacker.example:${port}`);
  assert.equal(refused.status, 403);
  assert.match((JSON.parse(refused.body) as { error: string }).error, /refused a request for host "attacker\.example:\d+".*loopback names/);
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) assert.equal((await health(host)).status, 200, host);
});

test("a token handed over on stdin guards the runner and is in no process's environment its tools can read", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-token-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const token = `stdin-token-${process.pid}-${Date.now()}`;
  const fake = await startFakeAnthropic({
    replies: [{ toolUses: [{ id: "toolu_env", name: "Bash", input: { command: `grep -l -a -F '${token.slice(0, -1)}' /proc/[0-9]*/environ 2>/dev/null | wc -l` } }] }, { text: "done" }],
  });
  t.after(() => fake.close());
  const runner = await spawnRunner(t, { HARNESS_WORKSPACE: dir, ANTHROPIC_BASE_URL: fake.url, HOME: dir }, ["--exit-with-stdin", "--token-from-stdin"], `${token}\n`);
  assert.equal((await fetch(`${runner.url}/health`)).status, 401);
  const client = createRunnerClient(runner.url, { token });
  const events = [];
  for await (const event of client.query({ prompt: "look for it", anthropicApiKey: "k", permissionMode: "bypassPermissions" }, { signal: AbortSignal.timeout(20_000) })) events.push(event);
  const done = events.find((e) => e.type === "tool.completed") as { output: string } | undefined;
  assert.equal(done?.output.trim(), "0");
  // It still exits when stdin closes.
  runner.child.stdin.end();
  assert.equal(await runner.exited, 0);
});

test("--token-from-stdin without a line on stdin refuses to start, saying why", async () => {
  const child = spawn(process.execPath, [mainPath, "--token-from-stdin"], { env: { ...process.env, HARNESS_RUNNER_PORT: "0" }, stdio: ["pipe", "pipe", "pipe"] });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  child.stdin.end("\n");
  const [code] = await once(child, "exit");
  assert.equal(code, 1);
  assert.equal(err, "harness-runner: --token-from-stdin: the first line of stdin is empty\n");
});
