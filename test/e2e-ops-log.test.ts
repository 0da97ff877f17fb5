// What an operator of a shared server sees: the server's log, and what a failed run tells every
// client of its session. Neither ever shows a secret the server was given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { MinimalClient, startHarnessServer, waitFor } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-ops-log-");

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test("a model gateway that cannot be reached is named without the password and query of its URL, to clients and in the log", async (t) => {
  const port = await closedPort();
  const server = await startHarnessServer({
    dataDir: await newDataDir(),
    env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: `http://gateway-user:gw-pass-1234@127.0.0.1:${port}/anthropic?key=query-secret-5678`, HARNESS_MODEL_RETRIES: "0" },
  });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "gateway" });
  t.after(() => client.close());
  client.send({ type: "submit", prompt: "hello" });
  await client.waitForState((s) => s.status === "error", 30_000, "the run to fail");
  const error = client.state!.error ?? "";
  assert.match(error, new RegExp(`could not connect to the Anthropic API at http://\\*\\*\\*@127\\.0\\.0\\.1:${port}/anthropic`));
  for (const secret of ["gw-pass-1234", "query-secret-5678", "gateway-user"]) {
    assert.doesNotMatch(JSON.stringify(client.state), new RegExp(secret), "the state every client sees");
    assert.doesNotMatch(server.output(), new RegExp(secret), "the server's log");
  }
});

test("the log has a line for each run's end, naming its session and, for a failed run, why", async (t) => {
  fake().push({ text: "done" }, { kind: "http-error", status: 401, errorType: "authentication_error", message: "invalid x-api-key" });
  const server = await startHarnessServer({ dataDir: await newDataDir(), env: modelEnv() });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "work" });
  t.after(() => client.close());
  client.send({ type: "submit", prompt: "prompt-alpha-42" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete");
  client.send({ type: "submit", prompt: "prompt-beta-43" });
  await client.waitForState((s) => s.status === "error");
  await waitFor(() => /run failed/.test(server.output()), "the failed run's line");
  assert.match(server.output(), /^session ann\/work: run completed$/m);
  assert.match(server.output(), /^session ann\/work: run failed: Anthropic API error 401 \(authentication_error\): invalid x-api-key/m);
  assert.doesNotMatch(server.output(), /test-key|prompt-alpha-42|prompt-beta-43/, "neither the key nor the prompts");
});

test("GET /health, behind the token, says how many sessions, clients and runs are live: whether a restart would cut a run", async (t) => {
  let release!: () => void;
  fake().push({ text: ["working "], hold: new Promise<void>((resolve) => (release = resolve)) });
  const token = "health-check-token-0123456789";
  const server = await startHarnessServer({ dataDir: await newDataDir(), env: { ...modelEnv(), HARNESS_TOKEN: token } });
  t.after(() => server.stop());
  const health = async () => (await fetch(`${server.url}/health`, { headers: { authorization: `Bearer ${token}` } })).json();
  assert.deepEqual(await health(), { ok: true, sessions: 0, clients: 0, runs: 0 });
  const first = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "busy", token });
  const second = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "busy", token });
  const third = await MinimalClient.connect(server.url, { userId: "bob", sessionId: "quiet", token });
  t.after(() => Promise.all([first.close(), second.close(), third.close()]));
  first.send({ type: "submit", prompt: "long job" });
  await first.waitForState((s) => s.messages[1]?.content === "working ", 30_000, "the run's first words");
  assert.deepEqual(await health(), { ok: true, sessions: 2, clients: 3, runs: 1 });
  release();
  await first.waitForState((s) => s.status === "idle");
  assert.deepEqual(await health(), { ok: true, sessions: 2, clients: 3, runs: 0 });
  assert.deepEqual(await (await fetch(`${server.url}/healthz`)).json(), { ok: true }, "the open liveness check says no more");
});

test("a request with a missing or wrong token is logged with where it came from, as a refused WebSocket is, never with the token", async (t) => {
  const token = "right-token-0123456789abcdef";
  const server = await startHarnessServer({ dataDir: await newDataDir(), env: { ...modelEnv(), HARNESS_TOKEN: token } });
  t.after(() => server.stop());
  const answer = await fetch(`${server.url}/sessions?userId=ann`, { headers: { authorization: "Bearer wrong-token-9876543210" } });
  assert.equal(answer.status, 401);
  await waitFor(() => /refused GET \/sessions from 127\.0\.0\.1: missing or wrong token/.test(server.output()), "the refusal to be logged");
  assert.doesNotMatch(server.output(), /wrong-token-9876543210|right-token/);
});
