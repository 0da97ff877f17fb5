// The HTTP requests a real `harness serve` answers, in its log: a line each, written when the answer
// ends or its client goes away, with the method, the path (the query's values hidden: a ?token= is
// a secret), the status, how long it took, the bytes sent and the token's user; the probes of load
// balancers and scrapers, and WebSocket handshakes, at debug level only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MinimalClient, startHarnessServer, waitFor, type HarnessProcess } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";
import { apiAs, executionWhen, V1 } from "./open-harness-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-access-log-");

const ANN = "ann-access-token-0123456789";
const SHARED = "shared-access-token-0123456789";
const WRONG = "not-anyones-token-0123456789";

type Entry = { time: string; level: string; msg: string; [field: string]: unknown };

function entries(output: string): Entry[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Entry);
}

/** The access lines of `server` so far of `path` (as shown: its query's values hidden). */
function requests(server: HarnessProcess, path: string): Entry[] {
  return entries(server.output()).filter((entry) => entry.path === path && typeof entry.durationMs === "number");
}

/** The one access line of `path`, once it is written. */
async function requestLine(server: HarnessProcess, path: string): Promise<Entry> {
  await waitFor(() => requests(server, path).length > 0, `the line of ${path}`).catch(() => assert.fail(`no line of ${path} in:\n${server.output()}`));
  const found = requests(server, path);
  assert.equal(found.length, 1, JSON.stringify(found));
  return found[0];
}

test("HARNESS_LOG_FORMAT=json: each request answered is a line with its method, path, status, duration, bytes and the token's user; probes and handshakes are debug; no token shows", async (t) => {
  const dataDir = await newDataDir();
  const tokens = join(dataDir, "tokens");
  await writeFile(tokens, `ann ${ANN}\n`);
  const server = await startHarnessServer({
    dataDir,
    env: { ...modelEnv(), HARNESS_TOKEN: SHARED, HARNESS_TOKENS_FILE: tokens, HARNESS_LOG_FORMAT: "json", HARNESS_LOG_LEVEL: "debug" },
  });
  t.after(() => server.stop());

  assert.equal((await fetch(`${server.url}/sessions?userId=ann&token=${ANN}`)).status, 200);
  const listed = await requestLine(server, "/sessions?userId=***&token=***");
  assert.equal(listed.level, "info");
  assert.equal(listed.method, "GET");
  assert.equal(listed.httpStatus, 200);
  assert.ok((listed.durationMs as number) >= 0, JSON.stringify(listed));
  assert.ok((listed.bytes as number) > 2, "the headers and the body");
  assert.equal(listed.user, "ann");
  assert.equal(listed.address, "127.0.0.1");

  assert.equal((await fetch(`${server.url}/no-such-thing?token=${ANN}`)).status, 404);
  const missing = await requestLine(server, "/no-such-thing?token=***");
  assert.deepEqual([missing.level, missing.httpStatus, missing.user], ["info", 404, "ann"]);

  // A wrong token is a secret still, though the server knows nothing of it.
  assert.equal((await fetch(`${server.url}/v1/harnesses?token=${WRONG}`)).status, 401);
  const refused = await requestLine(server, "/v1/harnesses?token=***");
  assert.deepEqual([refused.level, refused.method, refused.httpStatus, refused.user], ["info", "GET", 401, undefined]);

  const shared = { authorization: `Bearer ${SHARED}` };
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  assert.equal((await fetch(`${server.url}/health`, { headers: shared })).status, 200);
  assert.equal((await fetch(`${server.url}/metrics`, { headers: shared })).status, 200);
  assert.equal((await fetch(`${server.url}/v1/harnesses/harness/health`)).status, 200);
  for (const probe of ["/healthz", "/health", "/metrics", "/v1/harnesses/harness/health"]) {
    const line = await requestLine(server, probe);
    assert.deepEqual([line.level, line.httpStatus], ["debug", 200], probe);
  }

  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "s1", token: ANN });
  await client.waitForState(() => true, 10_000, "the snapshot");
  client.close();
  const ws = "/ws?userId=***&sessionId=***&token=***";
  const handshake = await requestLine(server, ws);
  assert.deepEqual([handshake.level, handshake.method, handshake.httpStatus, handshake.user], ["debug", "GET", 101, "ann"]);
  await assert.rejects(MinimalClient.connect(server.url, { userId: "ann", sessionId: "s1", token: WRONG }), /401/);
  await waitFor(() => requests(server, ws).length === 2, "the refused handshake's line");
  assert.deepEqual(
    requests(server, ws).map((line) => [line.level, line.httpStatus, line.user]),
    [
      ["debug", 101, "ann"],
      ["debug", 401, undefined],
    ],
  );

  await server.stop();
  for (const secret of [ANN, SHARED, WRONG]) assert.ok(!server.output().includes(secret), `${secret} in:\n${server.output()}`);
});

test("in text, a request's line says what was asked and how it was answered; the probes are left out at info", async (t) => {
  const server = await startHarnessServer({ dataDir: await newDataDir(), env: modelEnv() });
  t.after(() => server.stop());
  for (const probe of ["/healthz", "/health", "/metrics"]) assert.equal((await fetch(`${server.url}${probe}`)).status, 200);
  assert.equal((await fetch(`${server.url}/sessions?userId=ann`)).status, 200);
  const line = /^GET \/sessions\?userId=\*\*\* 200 in \d+ ms, \d+ bytes, from 127\.0\.0\.1$/m;
  await waitFor(() => line.test(server.output()), "the request's line").catch(() => assert.fail(`no line ${line} in:\n${server.output()}`));
  assert.doesNotMatch(server.output(), /GET \/health|GET \/metrics/);
});

test("an execution's SSE stream is a line when it ends, counting all it sent; one whose client leaves, when it leaves", async (t) => {
  const server = await startHarnessServer({ dataDir: await newDataDir(), env: { ...modelEnv(), HARNESS_LOG_FORMAT: "json" } });
  t.after(() => server.stop());
  const api = apiAs(server.url, "ann");

  fake().push({ text: ["a ", "slow ", "reply"], delayMs: 300 });
  const started = await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "take your time" }) });
  assert.equal(started.status, 202);
  const { execution_id: id } = await started.json();
  const stream = await api(`${V1}/executions/${id}/stream`);
  assert.equal(stream.status, 200);
  const reader = stream.body!.getReader();
  let read = 0;
  const first = await reader.read();
  read += first.value?.byteLength ?? 0;
  assert.equal(requests(server, `${V1}/executions/${id}/stream`).length, 0, "nothing while it streams");
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) read += chunk.value.byteLength;
  const ended = await requestLine(server, `${V1}/executions/${id}/stream`);
  assert.deepEqual([ended.level, ended.method, ended.httpStatus, ended.aborted], ["info", "GET", 200, undefined]);
  assert.ok((ended.durationMs as number) >= 500, `it lasted as long as the reply: ${JSON.stringify(ended)}`);
  assert.ok((ended.bytes as number) > read, `${ended.bytes} bytes: the ${read} read and the headers`);

  fake().push({ text: ["another ", "slow ", "reply ", "that ", "goes ", "on"], delayMs: 400 });
  const next = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "again" }) })).json();
  await executionWhen(api, next.execution_id, (e) => e.status === "running", "ran");
  const leaving = new AbortController();
  const left = await api(`${V1}/executions/${next.execution_id}/stream`, { signal: leaving.signal });
  await left.body!.getReader().read();
  leaving.abort();
  const gone = await requestLine(server, `${V1}/executions/${next.execution_id}/stream`);
  assert.deepEqual([gone.httpStatus, gone.aborted], [200, true]);
  assert.match(gone.msg, /went away/);
  await executionWhen(api, next.execution_id, (e) => e.status === "completed", "completed");
});
