// The server end to end in process: real sockets, real runner processes, the model faked at the wire.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { applyOperations, type HarnessState, type ServerMessage } from "@harness/protocol";
import { MinimalClient, startFakeAnthropic, type FakeAnthropic, type MinimalFrame } from "@harness/test-utils";
import { createRunnerPool, type RunnerPool } from "./runners/pool.ts";
import { createSupervisedRunner, startServer, type HarnessServer, type ServerOptions, type SupervisedRunner } from "./index.ts";
import { frameRecorder, tempDir, waitFor } from "./test-helpers.ts";

let fake: FakeAnthropic;
const cleanups: (() => Promise<void>)[] = [];
let counter = 0;
const ids = () => ({ userId: "alice", sessionId: `s${++counter}` });

before(async () => {
  fake = await startFakeAnthropic();
});
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await fake.close();
});

async function serve(options: ServerOptions = {}): Promise<{ server: HarnessServer; dataDir: string }> {
  let dataDir = options.dataDir;
  if (!dataDir) {
    const dir = await tempDir();
    cleanups.push(dir.remove);
    dataDir = dir.path;
  }
  const server = await startServer({
    port: 0,
    dataDir,
    log: () => {},
    env: { ...process.env, ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: fake.url },
    ...options,
  });
  cleanups.push(() => server.close());
  return { server, dataDir };
}

test("a client gets a state frame, then a submit streams deltas until idle with the reply", async () => {
  const { server } = await serve();
  fake.push({ text: ["Hel", "lo"] });
  const before = fake.requests.length;
  const client = await MinimalClient.connect(server.url, ids());
  await client.waitForState(() => true);
  assert.deepEqual(client.frames[0], { type: "state", state: { status: "idle", messages: [] }, seq: 0 });

  client.send({ type: "submit", prompt: "hi" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the run to end");
  assert.deepEqual(
    client.state!.messages.map((m) => [m.role, m.content, m.status]),
    [["user", "hi", "complete"], ["assistant", "Hello", "complete"]],
  );
  assert.ok(client.frames.slice(1).every((f) => f.type === "delta"));
  assert.equal(fake.requests[before].headers["x-api-key"], "test-key", "the server's key reaches the model");
  await client.close();
});

test("with ANTHROPIC_AUTH_TOKEN in place of a key, runs send it as a bearer token, and the runner's tools never see it", async () => {
  const env: Record<string, string | undefined> = { ...process.env, ANTHROPIC_AUTH_TOKEN: "bearer-secret", ANTHROPIC_BASE_URL: fake.url };
  delete env.ANTHROPIC_API_KEY;
  const { server } = await serve({ env });
  fake.push({ toolUses: [{ id: "toolu_env", name: "Bash", input: { command: "echo token=${ANTHROPIC_AUTH_TOKEN:-none}" } }] }, { text: "done" });
  const before = fake.requests.length;
  const client = await MinimalClient.connect(server.url, ids());
  await client.waitForState(() => true);
  client.send({ type: "configure", permissionMode: "fullAuto" }, { type: "submit", prompt: "show the token" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the run to end");
  assert.equal(fake.requests[before].headers.authorization, "Bearer bearer-secret");
  assert.equal(client.state!.messages[1].toolCalls?.[0].output?.trim(), "token=none", JSON.stringify(client.state));
  await client.close();
});

test("bad frames each get an error frame; the connection and the state survive", async () => {
  const { server } = await serve();
  const client = await MinimalClient.connect(server.url, ids());
  await client.waitForState(() => true);
  const initial = structuredClone(client.state);
  client.sendRaw("not json at all");
  client.send({ type: "fly" });
  client.send({ type: "submit" });
  client.sendRaw(JSON.stringify({ type: "commands", commands: [{ type: "submit", prompt: "x".repeat(1_100_000) }] }));
  await client.waitForErrors(4);
  assert.deepEqual(client.errors.map((e) => e.code), ["bad_json", "unknown_command", "bad_command", "frame_too_large"]);
  assert.match(client.errors[1].message, /fly/);
  assert.match(client.errors[2].message, /prompt/);
  assert.equal(client.closed, false);
  assert.deepEqual(client.state, initial);

  fake.push({ text: "fine" });
  client.send({ type: "submit", prompt: "still there?" });
  await client.waitForState((s) => s.messages[1]?.status === "complete", 30_000);
  assert.equal(client.state!.messages[1].content, "fine");
  await client.close();
});

test("a client reconnecting with since gets exactly the deltas it missed", async () => {
  const { server } = await serve();
  const session = ids();
  const words = Array.from({ length: 30 }, (_, i) => `w${i} `);
  fake.push({ text: words, delayMs: 2 });
  const client = await MinimalClient.connect(server.url, session);
  client.send({ type: "submit", prompt: "stream" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000);
  const deltas = client.frames.filter((f) => f.type === "delta") as { seq: number }[];
  assert.ok(deltas.length >= 3, "the run took several batches");
  const since = deltas[1].seq;

  const wsUrl = (since: number) => `${server.url}/ws?userId=${session.userId}&sessionId=${session.sessionId}&since=${since}`;
  const back = await frameRecorder(wsUrl(since));
  await waitFor(() => back.frames.at(-1)?.type === "delta" && (back.frames.at(-1) as { seq: number }).seq === client.seq, "the replay");
  assert.deepEqual(back.frames, client.frames.filter((f) => f.type === "delta" && f.seq > since));
  let state = stateAt(client.frames, since);
  for (const frame of back.frames) if (frame.type === "delta") state = applyOperations(state, frame.operations);
  assert.deepEqual(state, client.state, "the missed deltas bring the client's copy up to date");

  const current = await frameRecorder(wsUrl(client.seq));
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(current.frames, [], "an up-to-date client is sent nothing");
  await Promise.all([client.close(), back.close(), current.close()]);
});

test("a client that missed more than a state frame holds is sent one state frame, not the megabytes it missed", async () => {
  const { server } = await serve();
  const session = ids();
  const client = await MinimalClient.connect(server.url, session);
  const first = client.seq;
  // Forty system prompts of 200,000 characters: 8 MB of deltas, where the state holds the last one.
  for (let i = 0; i < 40; i++) client.send({ type: "configure", config: { systemPrompt: `${i}`.padEnd(200_000, "x") } });
  await client.waitForState((s) => (s.config as { systemPrompt?: string } | undefined)?.systemPrompt?.startsWith("39") === true, 30_000);
  const since = first + 1;

  const back = await frameRecorder(`${server.url}/ws?userId=${session.userId}&sessionId=${session.sessionId}&since=${since}`);
  await waitFor(() => back.frames.length > 0, "the catch-up");
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(back.frames.map((f) => f.type), ["state"]);
  const [frame] = back.frames as { type: "state"; state: HarnessState; seq: number }[];
  assert.equal(frame.seq, client.seq);
  assert.deepEqual(frame.state, client.state);
  await Promise.all([client.close(), back.close()]);
});

test("cancel through a real runner ends the run cancelled, and the next submit runs", async () => {
  const { server } = await serve();
  let release!: () => void;
  fake.push({ text: ["partial"], hold: new Promise<void>((r) => (release = r)) }, { text: "second" });
  const client = await MinimalClient.connect(server.url, ids());
  client.send({ type: "submit", prompt: "slow" });
  await client.waitForState((s) => s.messages[1]?.content === "partial", 30_000);
  client.send({ type: "cancel" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1].status === "cancelled");
  release();
  client.send({ type: "submit", prompt: "again" });
  await client.waitForState((s) => s.messages[3]?.status === "complete", 30_000);
  assert.equal(client.state!.messages[3].content, "second");
  assert.deepEqual(client.errors, []);
  await client.close();
});

/** A runner factory (runners of a pool, one per user) that lists the runners it made. */
function listedRunners(dataDir: () => string, extra: { stallMs?: number } = {}): { made: SupervisedRunner[]; runnerFactory: ServerOptions["runnerFactory"] } {
  const made: SupervisedRunner[] = [];
  let pool: RunnerPool | undefined;
  const runnerFactory: ServerOptions["runnerFactory"] = ({ userId, sessionId }) => {
    pool ??= createRunnerPool({
      env: { ...process.env, ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: undefined },
      capacity: 10,
      dir: join(dataDir(), "runners"),
      idleExitMs: 60_000,
      log: () => {},
    });
    const runner = createSupervisedRunner({
      workspace: join(dataDir(), "w", userId, sessionId),
      pool,
      group: userId,
      member: sessionId,
      credentials: async () => ({ anthropicApiKey: "test-key" }),
      idleMs: 60_000,
      log: () => {},
      ...extra,
    });
    made.push(runner);
    return runner;
  };
  return { made, runnerFactory };
}

async function freshDir(): Promise<string> {
  const dir = await tempDir();
  cleanups.push(dir.remove);
  return dir.path;
}

test("a runner that dies mid-run ends the runs it served in error, saying so the same way; the next submit starts a new runner", async () => {
  const dataDir = await freshDir();
  const { made, runnerFactory } = listedRunners(() => dataDir);
  const { server } = await serve({ runnerFactory, dataDir });
  fake.push({ text: ["half"], hold: new Promise(() => {}) }, { text: ["half"], hold: new Promise(() => {}) }, { text: "recovered" });
  // Two sessions of one user: one runner process serves both.
  const client = await MinimalClient.connect(server.url, ids());
  const other = await MinimalClient.connect(server.url, ids());
  client.send({ type: "submit", prompt: "go" });
  await client.waitForState((s) => s.messages[1]?.content === "half", 30_000);
  other.send({ type: "submit", prompt: "go too" });
  await other.waitForState((s) => s.messages[1]?.content === "half", 30_000);
  assert.equal(made[0].pid(), made[1].pid());
  process.kill(made[0].pid()!, "SIGKILL");
  for (const c of [client, other]) {
    await c.waitForState((s) => s.status === "error", 15_000, "the run to fail");
    assert.equal(c.state!.messages[1].status, "error");
    assert.equal(c.state!.error, "The run failed: the runner process was killed (SIGKILL) during the run");
  }
  await other.close();

  client.send({ type: "submit", prompt: "again" });
  await client.waitForState((s) => s.messages[3]?.status === "complete", 30_000);
  assert.equal(client.state!.messages[3].content, "recovered");
  await client.close();
});

test("a runner that stops answering mid-run is stopped, and the run ends in error saying so; the next submit starts a new runner", async () => {
  const dataDir = await freshDir();
  const { made, runnerFactory } = listedRunners(() => dataDir, { stallMs: 500 });
  const { server } = await serve({ runnerFactory, dataDir });
  fake.push({ text: ["half"], hold: new Promise(() => {}) }, { text: "recovered" });
  const client = await MinimalClient.connect(server.url, ids());
  client.send({ type: "submit", prompt: "go" });
  await client.waitForState((s) => s.messages[1]?.content === "half", 30_000);
  const pid = made[0].pid()!;
  process.kill(pid, "SIGSTOP");
  try {
    await client.waitForState((s) => s.status === "error", 15_000, "the run to fail");
  } finally {
    // Stopped: a SIGKILL ends it; were it not, this lets it go on to exit.
    try {
      process.kill(pid, "SIGCONT");
    } catch {
      // Gone.
    }
  }
  assert.match(client.state!.error!, /^The run failed: the runner stopped answering \(nothing for 1 s, and \/health: .*\); it was stopped$/);
  client.send({ type: "submit", prompt: "again" });
  await client.waitForState((s) => s.messages[3]?.status === "complete", 30_000);
  assert.equal(client.state!.messages[3].content, "recovered");
  assert.notEqual(made[0].pid(), pid, "a new runner process");
  await client.close();
});

test("each run's model call gets the whole conversation, also when the runner that kept it has died between runs", async () => {
  const dataDir = await freshDir();
  const { made, runnerFactory } = listedRunners(() => dataDir);
  const { server } = await serve({ runnerFactory, dataDir });
  const client = await MinimalClient.connect(server.url, ids());
  const texts: string[] = [];
  const turn = async (prompt: string, reply: string) => {
    fake.push({ text: reply });
    const before = fake.requests.length;
    client.send({ type: "submit", prompt });
    const n = client.state!.messages.length;
    await client.waitForState((s) => s.status === "idle" && s.messages[n + 1]?.status === "complete", 30_000, `the run of ${prompt}`);
    const sent = fake.requests[before].body.messages as { role: string; content: unknown }[];
    texts.push(prompt, reply);
    return sent.map((m) => JSON.stringify(m.content));
  };
  await client.waitForState(() => true);
  await turn("one", "first reply");
  // The second query names the transcript the runner kept; the model still gets all of it.
  const second = await turn("two", "second reply");
  assert.equal(second.length, 3);
  assert.match(second[0], /one/);
  assert.match(second[1], /first reply/);
  // The runner dies while idle: the next query's id names nothing, and the history goes whole.
  const pid = made[0].pid()!;
  process.kill(pid, "SIGKILL");
  await waitFor(() => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }, "the runner to die");
  const third = await turn("three", "third reply");
  assert.equal(third.length, 5);
  for (const [i, text] of texts.slice(0, 5).entries()) assert.match(third[i], new RegExp(text));
  await client.close();
});

test("a runner that cannot start ends the run with an error that says so", async () => {
  const dir = await tempDir();
  cleanups.push(dir.remove);
  const broken = join(dir.path, "broken-runner.ts");
  await writeFile(broken, "console.log('starting');\nconsole.error('harness-runner: HARNESS_BACKEND: unknown backend \"bogus\"');\nprocess.exit(2);\n");
  const { server } = await serve({
    dataDir: dir.path,
    runnerFactory: () => {
      const pool = createRunnerPool({ env: {}, capacity: 1, dir: join(dir.path, "runners"), idleExitMs: 60_000, log: () => {}, mainPath: broken });
      return createSupervisedRunner({ workspace: join(dir.path, "w"), pool, group: "u", member: "s", idleMs: 60_000, log: () => {} });
    },
  });
  const client = await MinimalClient.connect(server.url, ids());
  client.send({ type: "submit", prompt: "hi" });
  await client.waitForState((s) => s.status === "error", 15_000);
  assert.equal(client.state!.error, 'The run failed: the runner failed to start: the runner exited (code 2) before it was ready: harness-runner: HARNESS_BACKEND: unknown backend "bogus"');
  assert.equal(client.state!.messages[1].status, "error");
  await client.close();
});

test("a conversation survives close() and a new server on the same data dir, and goes on with its history", async () => {
  const first = await serve();
  const session = ids();
  fake.push({ text: "remember me" });
  const client = await MinimalClient.connect(first.server.url, session);
  client.send({ type: "submit", prompt: "hello" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000);
  const finished = structuredClone(client.state);
  const seq = client.seq;
  await first.server.close();
  await client.waitFor((c) => c.closed, 5000, "the socket to close");

  const second = await serve({ dataDir: first.dataDir });
  const again = await MinimalClient.connect(second.server.url, session);
  await again.waitForState(() => true);
  assert.deepEqual(again.state, finished);
  assert.equal(again.seq, seq);

  fake.push({ text: "still here" });
  const before = fake.requests.length;
  again.send({ type: "submit", prompt: "again" });
  await again.waitForState((s) => s.messages[3]?.status === "complete", 30_000);
  const sent = fake.requests[before].body.messages as { role: string }[];
  assert.deepEqual(sent.map((m) => m.role), ["user", "assistant", "user"]);
  assert.match(JSON.stringify(sent), /remember me/);
  await again.close();
});

test("close() during a run stores it as interrupted; after a restart it is never running", async () => {
  const first = await serve();
  const session = ids();
  fake.push({ text: ["half an answer"], hold: new Promise(() => {}) });
  const client = await MinimalClient.connect(first.server.url, session);
  client.send({ type: "submit", prompt: "long job" });
  await client.waitForState((s) => s.messages[1]?.content === "half an answer", 30_000);
  await first.server.close();

  const second = await serve({ dataDir: first.dataDir });
  const again = await MinimalClient.connect(second.server.url, session);
  await again.waitForState(() => true);
  assert.equal(again.state!.status, "error");
  assert.match(again.state!.error ?? "", /interrupted/i);
  assert.equal(again.state!.messages[1].status, "cancelled");
  assert.equal(again.state!.messages[1].content, "half an answer");
  await again.close();
});

function stateAt(frames: MinimalFrame[], seq: number): HarnessState {
  let state: HarnessState | undefined;
  for (const frame of frames as ServerMessage[]) {
    if (frame.type === "state") state = frame.state;
    else if (frame.type === "delta" && frame.seq <= seq) state = applyOperations(state!, frame.operations);
  }
  return state!;
}

test("/cost and /context in a session answer as the assistant's reply, without a model call", async () => {
  const { server } = await serve();
  fake.push({ text: "Hello" });
  const client = await MinimalClient.connect(server.url, ids());
  await client.waitForState(() => true);
  client.send({ type: "submit", prompt: "hi" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the first run to end");
  const before = fake.requests.length;

  client.send({ type: "submit", prompt: "/cost" });
  await client.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete", 30_000, "/cost to answer");
  const cost = client.state!.messages[3]!;
  assert.equal(cost.role, "assistant");
  assert.match(String(cost.content), /Total cost:\s+\$\d+\.\d{4}/);
  assert.match(String(cost.content), /Model calls:\s+1\b/);

  client.send({ type: "submit", prompt: "/context" });
  await client.waitForState((s) => s.status === "idle" && s.messages[5]?.status === "complete", 30_000, "/context to answer");
  assert.match(String(client.state!.messages[5]!.content), /^Context usage: .* of [\d.]+k tokens/);
  assert.match(String(client.state!.messages[5]!.content), /^\s+Messages\s+\d+ tokens/m);
  assert.equal(fake.requests.length, before, "neither called the model");
  await client.close();
});

test("a server started without ANTHROPIC_API_KEY ends a run saying the server needs the key, not the user's shell", async () => {
  const home = await tempDir();
  cleanups.push(home.remove);
  const { server } = await serve({ env: { ...process.env, HOME: home.path, ANTHROPIC_API_KEY: undefined, ANTHROPIC_AUTH_TOKEN: undefined, ANTHROPIC_BASE_URL: fake.url } });
  const client = await MinimalClient.connect(server.url, ids());
  await client.waitForState(() => true);
  client.send({ type: "submit", prompt: "hi" });
  await client.waitForState((s) => s.error !== undefined, 30_000, "the run to fail");
  assert.match(client.state!.error!, /the server has no ANTHROPIC_API_KEY \(nor ANTHROPIC_AUTH_TOKEN\): set it where `harness serve` runs, and restart the server/);
  assert.doesNotMatch(client.state!.error!, /export your Anthropic API key/);
  await client.close();
});
