// The client SDK against the real server process: typed commands, live state, and reconnecting with
// `since` after the server goes away and comes back on the same port.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHarnessClient } from "@harness/client";
import { startServer } from "@harness/server";
import { startFakeAnthropic, startHarnessServer } from "@harness/test-utils";

test("the SDK client follows a run and carries on across a server restart", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-sdk-"));
  const fake = await startFakeAnthropic({ replies: [{ text: ["one ", "two"] }, { text: "three" }] });
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  let server = await startHarnessServer({ dataDir, env });
  const client = createHarnessClient({ url: server.url, userId: "sdk", sessionId: "main", reconnect: { minDelayMs: 50, maxDelayMs: 200 } });
  const errors: string[] = [];
  const retries: string[] = [];
  client.on("error", (e) => (e.code === "reconnect_failed" ? retries : errors).push(e.message));
  const connection = (ok: (status: string) => boolean) =>
    new Promise<void>((resolve) => {
      if (ok(client.connection)) return resolve();
      const off = client.on("connection", (status) => {
        if (ok(status)) {
          off();
          resolve();
        }
      });
    });
  try {
    await client.connect();
    client.submit("count");
    let state = await client.waitFor((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000);
    assert.equal(state.messages[1].content, "one two");

    const port = server.port;
    await server.stop();
    await connection((status) => status !== "open");
    server = await startHarnessServer({ dataDir, env, port });
    await connection((status) => status === "open");
    client.submit("more");
    state = await client.waitFor((s) => s.messages[3]?.status === "complete", 30_000);
    assert.equal(state.messages[3].content, "three");
    assert.deepEqual(state.messages.map((m) => m.role), ["user", "assistant", "user", "assistant"]);
    assert.deepEqual(errors, []);
    // While the server was away, each failed attempt said why.
    for (const retry of retries) assert.match(retry, /^could not reconnect to ws:\/\/127\.0\.0\.1:\d+\/ws\?userId=sdk&sessionId=main&since=\d+: the WebSocket handshake failed .*; trying again$/);
  } finally {
    client.close();
    await server.stop();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("the SDK client's connect() fails with the reason when the server refuses it, and succeeds with the token", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-sdk-"));
  const server = await startHarnessServer({ dataDir, env: { HARNESS_TOKEN: "right" } });
  const wrong = createHarnessClient({ url: server.url, userId: "sdk", sessionId: "main", token: "not-the-token" });
  const right = createHarnessClient({ url: server.url, userId: "sdk", sessionId: "main", token: "right" });
  try {
    await assert.rejects(wrong.connect(), (error: Error) => {
      assert.match(error.message, /^could not connect to ws:\/\/127\.0\.0\.1:\d+\/ws\?userId=sdk&sessionId=main&token=…: the server refused the WebSocket handshake \(401\): missing or wrong token: /);
      assert.doesNotMatch(error.message, /not-the-token/);
      return true;
    });
    assert.equal(wrong.connection, "closed");
    const state = await right.connect();
    assert.equal(state.status, "idle");
  } finally {
    wrong.close();
    right.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("the SDK client's run() waits for the run a prompt starts, an approval on the way, and says a refused prompt", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-sdk-"));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const fake = await startFakeAnthropic({
    replies: [
      { text: "first answer" },
      { toolUses: [{ name: "Write", input: { file_path: "note.txt", content: "hi\n" } }] },
      { text: "written" },
      { text: ["slow ", "answer"], hold: held },
    ],
  });
  const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url } });
  const client = createHarnessClient({ url: server.url, userId: "sdk", sessionId: "run" });
  const errors: string[] = [];
  client.on("error", (error) => errors.push(error.message));
  try {
    await client.connect();
    const first = await client.run("hello", { timeoutMs: 30_000 });
    assert.equal(first.status, "complete");
    assert.equal(first.reply.content, "first answer");
    assert.equal(first.prompt.content, "hello");

    // onApproval is asked once about the call, as the Agent SDK's canUseTool is.
    const asked: string[] = [];
    const second = await client.run("write a note", {
      timeoutMs: 30_000,
      onApproval: (request) => {
        asked.push(`${request.toolName} ${JSON.stringify(request.input)}`);
        return { behavior: "allow" };
      },
    });
    assert.deepEqual(asked, [`Write {"file_path":"note.txt","content":"hi\\n"}`]);
    assert.equal(second.status, "complete");
    assert.equal(second.reply.content, "written");
    assert.equal(second.reply.toolCalls?.[0]?.status, "complete");

    let streamed = "";
    const slow = client.run("take your time", { timeoutMs: 30_000, onText: (text) => (streamed += text) });
    await client.waitFor((s) => s.status === "running", 30_000);
    await assert.rejects(client.run("meanwhile"), (error: Error & { code?: string }) => {
      assert.equal(error.message, "run: a run is already in progress; cancel it or wait for it to finish");
      assert.equal(error.code, "busy");
      return true;
    });
    release();
    assert.equal((await slow).reply.content, "slow answer");
    assert.equal(streamed, "slow answer");
    assert.deepEqual(errors, ["a run is already in progress; cancel it or wait for it to finish"]);
  } finally {
    release();
    client.close();
    await server.stop();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("a program runs the server in-process, as the README shows, and drives it with the SDK client", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-sdk-"));
  const fake = await startFakeAnthropic({ replies: [{ text: "from the fake" }] });
  const server = await startServer({ port: 0, dataDir, log: () => {}, env: { ...process.env, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url } });
  const client = createHarnessClient({ url: server.url, userId: "me", sessionId: "first" });
  try {
    await client.connect();
    const { status, reply } = await client.run("hello", { timeoutMs: 30_000 });
    assert.equal(status, "complete");
    assert.equal(reply.content, "from the fake");
  } finally {
    client.close();
    await server.close();
    await fake.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test("the SDK client's configure() answers whether the session took the settings, with the server's reason when not", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "harness-sdk-"));
  const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "", OPENAI_BASE_URL: "" } });
  const client = createHarnessClient({ url: server.url, userId: "sdk", sessionId: "configure" });
  try {
    await client.connect();
    assert.deepEqual(await client.configure({ model: "claude-haiku-4-5", maxTurns: 4 }), { ok: true, config: { model: "claude-haiku-4-5", maxTurns: 4 } });
    const refused = await client.configure({ model: "openai/gpt-4o" });
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? "" : refused.error, /^configure: model "openai\/gpt-4o" cannot be used here: .*OPENAI_API_KEY is not set/);
    assert.equal(client.state?.config?.model, "claude-haiku-4-5");
  } finally {
    client.close();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
});
