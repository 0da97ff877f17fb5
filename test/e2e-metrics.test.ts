// GET /metrics, end to end: a real `harness serve`, its runner and the fake model; a scraper's view
// of a run completed, a run cancelled, a bad frame, malformed handshakes, a deleted session, a run
// a previous server left, read with a strict parser of the Prometheus text format
// (metrics-scrape-support.ts); and who may scrape: the shared token or the metrics token only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MinimalClient, rawHttp, startFakeOpenAI, startHarnessServer, storedRunnerPid, waitFor } from "@harness/test-utils";
import { fakeModelForFile } from "./fake-model-support.ts";
import { moved, scrape, upgrade, value } from "./metrics-scrape-support.ts";

const { fake, newDataDir, modelEnv } = fakeModelForFile("harness-metrics-");

test("a scrape counts a completed run, its tokens and cost, a cancelled run and a refused frame, and says nothing of users, sessions or prompts", async (t) => {
  const dataDir = await newDataDir();
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_RUNNER_IDLE_MS: "60000" } });
  t.after(() => server.stop());

  const start = await scrape(server.url);
  for (const name of ["harness_sessions_open", "harness_clients_connected", "harness_runs_in_flight", "harness_runs_awaiting_approval", "harness_runner_processes"]) {
    assert.equal(start.types.get(name), "gauge", name);
    assert.equal(value(start, name), 0, name);
  }
  for (const name of ["process_resident_memory_bytes", "nodejs_heap_used_bytes", "process_uptime_seconds"]) assert.ok(value(start, name) > 0, name);
  assert.equal(start.types.get("process_cpu_seconds_total"), "counter");
  assert.equal(start.types.get("nodejs_eventloop_delay_seconds"), "summary");
  assert.ok(start.samples.some((s) => s.name === "nodejs_eventloop_delay_seconds" && s.labels.quantile === "0.99"));
  const build = start.samples.find((s) => s.name === "harness_build_info");
  assert.equal(build?.value, 1);
  assert.match(build!.labels.version, /^\d+\.\d+\.\d+/);

  fake().push({ text: "hello there", usage: { input_tokens: 1234, output_tokens: 56, cache_read_input_tokens: 700, cache_creation_input_tokens: 80 } });
  const client = await MinimalClient.connect(server.url, { userId: "metrics-user-x", sessionId: "metrics-session-y" });
  t.after(() => client.close());
  client.send({ type: "submit", prompt: "a-secret-prompt-z" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the run to complete");
  const usage = (client.state as unknown as { usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; costUsd: number } }).usage;

  const ran = await scrape(server.url);
  assert.equal(moved(start, ran, "harness_runs_started_total"), 1);
  assert.equal(moved(start, ran, "harness_runs_ended_total", { outcome: "completed" }), 1);
  assert.equal(moved(start, ran, "harness_commands_received_total", { type: "submit" }), 1);
  assert.equal(moved(start, ran, "harness_websocket_connections_total"), 1);
  assert.equal(moved(start, ran, "harness_runner_processes_started_total"), 1);
  assert.equal(value(ran, "harness_model_tokens_total", { kind: "input" }), 1234);
  assert.equal(value(ran, "harness_model_tokens_total", { kind: "output" }), 56);
  assert.equal(value(ran, "harness_model_tokens_total", { kind: "cache_read" }), 700);
  assert.equal(value(ran, "harness_model_tokens_total", { kind: "cache_write" }), 80);
  assert.equal(usage.inputTokens, 1234, "the session counts what the model reported");
  assert.ok(usage.costUsd > 0);
  assert.equal(value(ran, "harness_model_cost_usd_total").toFixed(9), usage.costUsd.toFixed(9));
  assert.equal(value(ran, "harness_sessions_open"), 1);
  assert.equal(value(ran, "harness_clients_connected"), 1);
  assert.equal(value(ran, "harness_runs_in_flight"), 0);
  assert.equal(value(ran, "harness_runner_processes"), 1);

  // A run held by a long command, cancelled while it goes.
  fake().push({ toolUses: [{ name: "Bash", input: { command: "sleep 30" } }] });
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "sleep" });
  await client.waitForState((s) => s.messages[3]?.toolCalls?.[0]?.status === "running", 30_000, "the command to run");
  const running = await scrape(server.url);
  assert.equal(value(running, "harness_runs_in_flight"), 1);
  client.send({ type: "cancel" });
  await client.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "cancelled", 30_000, "the cancel");
  client.sendRaw("not json");
  await client.waitFor((c) => c.errors.length === 1, 10_000, "the error frame");
  assert.equal(client.errors[0].code, "bad_json");
  await assert.rejects(MinimalClient.connect(server.url, { userId: "", sessionId: "s" }), /400/);
  // Handshakes the WebSocket library itself refuses: a malformed key, a version it does not speak.
  assert.match(await rawHttp(server.url, upgrade("/ws?userId=ann&sessionId=raw", { "sec-websocket-key": "not-a-key" })), /^HTTP\/1\.1 400 /);
  const oldVersion = await rawHttp(server.url, upgrade("/ws?userId=ann&sessionId=raw", { "sec-websocket-version": "7" }));
  assert.match(oldVersion, /^HTTP\/1\.1 400 /);
  assert.match(oldVersion, /sec-websocket-version: 13, 8/i);
  assert.match(oldVersion, /"error":"bad WebSocket handshake: Missing or invalid Sec-WebSocket-Version header"/);
  const posted = await rawHttp(server.url, upgrade("/ws?userId=ann&sessionId=raw").replace(/^GET/, "POST"));
  assert.match(posted, /^HTTP\/1\.1 405 /);
  assert.match(posted, /\r\nAllow: GET\r\n/i);

  const end = await scrape(server.url);
  assert.equal(moved(ran, end, "harness_runs_started_total"), 1);
  assert.equal(moved(ran, end, "harness_runs_ended_total", { outcome: "cancelled" }), 1);
  assert.equal(moved(ran, end, "harness_runs_ended_total", { outcome: "completed" }), 0);
  assert.equal(moved(ran, end, "harness_commands_received_total", { type: "cancel" }), 1);
  assert.equal(moved(ran, end, "harness_commands_received_total", { type: "configure" }), 1);
  assert.equal(moved(ran, end, "harness_commands_refused_total", { code: "bad_json" }), 1);
  assert.equal(moved(ran, end, "harness_websocket_handshakes_refused_total", { status: "400" }), 3);
  assert.equal(moved(ran, end, "harness_websocket_handshakes_refused_total", { status: "405" }), 1);
  assert.equal(moved(ran, end, "harness_websocket_connections_total"), 0, "no refused handshake counts as a connection");
  assert.equal(value(end, "harness_runs_in_flight"), 0);
  assert.doesNotMatch(end.text, /metrics-user-x|metrics-session-y|a-secret-prompt-z/);

  // The session deleted under its client: a notice, not a refusal; the client back later with the
  // seq it held is told so on a socket closed at once, which no count of connections includes.
  const deleted = await fetch(`${server.url}/sessions/metrics-session-y`, { method: "DELETE", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "metrics-user-x" }) });
  assert.equal(deleted.status, 200, await deleted.text());
  await client.waitFor((c) => c.errors.some((e) => e.code === "session_deleted"), 10_000, "the deletion notice");
  const back = await MinimalClient.connect(server.url, { userId: "metrics-user-x", sessionId: "metrics-session-y", since: client.seq });
  t.after(() => back.close());
  await back.waitFor((c) => c.closed, 10_000, "the socket to close");
  assert.equal(back.errors[0]?.code, "session_deleted");
  const gone = await scrape(server.url);
  assert.equal(moved(end, gone, "harness_session_notices_total", { code: "session_deleted" }), 1);
  assert.equal(moved(end, gone, "harness_commands_refused_total", { code: "session_deleted" }), 0);
  assert.equal(moved(end, gone, "harness_websocket_closed_at_open_total", { reason: "session_deleted" }), 1);
  assert.equal(moved(end, gone, "harness_websocket_connections_total"), 0);
  assert.equal(gone.types.get("harness_runs_interrupted_at_start_total"), "counter");
});

test("calls of a model without a known price are counted apart: they add nothing to the cost", async (t) => {
  // Each call: 1000 in and 100 out; Claude Haiku 4.5 ($1 and $5 a million tokens) costs $0.0015.
  const usage = { prompt_tokens: 1000, completion_tokens: 100 };
  const openai = await startFakeOpenAI({ replies: [{ text: "first", usage }, { text: "second", usage }] });
  t.after(() => openai.close());
  const env = { ANTHROPIC_API_KEY: "", OPENAI_API_KEY: "", OPENAI_BASE_URL: openai.url, HARNESS_MODEL: "openai/made-up-model-7b", HARNESS_MODEL_RETRIES: "0" };
  const server = await startHarnessServer({ dataDir: await newDataDir(), env });
  t.after(() => server.stop());
  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "unpriced" });
  t.after(() => client.close());

  const start = await scrape(server.url);
  assert.equal(start.types.get("harness_model_unpriced_calls_total"), "counter");
  assert.match(start.text, /^# HELP harness_model_unpriced_calls_total .*no known price/m);
  assert.equal(value(start, "harness_model_unpriced_calls_total"), 0);
  client.send({ type: "submit", prompt: "hello" });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the first run");
  const unpriced = await scrape(server.url);
  assert.equal(value(unpriced, "harness_model_unpriced_calls_total"), 1);
  assert.equal(value(unpriced, "harness_model_cost_usd_total"), 0);
  assert.equal(value(unpriced, "harness_model_tokens_total", { kind: "input" }), 1000);

  client.send({ type: "configure", config: { model: "openai/anthropic/claude-haiku-4.5" } }, { type: "submit", prompt: "again" });
  await client.waitForState((s) => s.status === "idle" && s.messages[3]?.status === "complete", 30_000, "the second run");
  const priced = await scrape(server.url);
  assert.equal(value(priced, "harness_model_unpriced_calls_total"), 1);
  assert.equal(value(priced, "harness_model_cost_usd_total").toFixed(4), "0.0015");
});

test("a run waiting for approval shows as such, and a runner process that dies under its session is counted as exited unexpectedly", async (t) => {
  const dataDir = await newDataDir();
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_RUNNER_IDLE_MS: "60000" } });
  t.after(() => server.stop());
  const ids = { userId: "ann", sessionId: "approvals" };
  const client = await MinimalClient.connect(server.url, ids);
  t.after(() => client.close());

  fake().push({ toolUses: [{ name: "Write", input: { file_path: "notes.txt", content: "hi\n" } }] }, { text: "fine, not then" });
  client.send({ type: "submit", prompt: "write hi" });
  await client.waitForState((s) => s.status === "awaiting-approval", 30_000, "the approval request");
  const waiting = await scrape(server.url);
  assert.equal(value(waiting, "harness_runs_awaiting_approval"), 1);
  assert.equal(value(waiting, "harness_runs_in_flight"), 1);
  client.send({ type: "deny", toolCallId: client.state!.messages[1]!.toolCalls![0]!.id });
  await client.waitForState((s) => s.status === "idle" && s.messages[1]?.status === "complete", 30_000, "the run to end");
  const done = await scrape(server.url);
  assert.equal(value(done, "harness_runs_awaiting_approval"), 0);
  assert.equal(value(done, "harness_commands_received_total", { type: "deny" }), 1);
  assert.equal(value(done, "harness_runner_processes"), 1);
  assert.equal(value(done, "harness_runner_processes_exited_unexpectedly_total"), 0);

  const pid = storedRunnerPid(dataDir, ids);
  assert.ok(pid !== undefined, "a runner served the run");
  process.kill(pid, "SIGKILL");
  let after = done;
  await waitFor(
    async () => {
      after = await scrape(server.url);
      return value(after, "harness_runner_processes_exited_unexpectedly_total") === 1;
    },
    "the runner's death to be counted",
    { intervalMs: 100 },
  );
  assert.equal(value(after, "harness_runner_processes"), 0);
});

test("a run a previous server left with its runner gone is counted interrupted at start, neither started nor ended, so started less ended stays the runs in flight", async (t) => {
  const dataDir = await newDataDir();
  const env = { ...modelEnv(), HARNESS_RUNNER_IDLE_MS: "60000" };
  const first = await startHarnessServer({ dataDir, env });
  t.after(() => first.stop());
  const ids = { userId: "ann", sessionId: "left" };
  const client = await MinimalClient.connect(first.url, ids);
  t.after(() => client.close());
  fake().push({ toolUses: [{ name: "Bash", input: { command: "sleep 30" } }] });
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "sleep" });
  await client.waitForState((s) => s.messages[1]?.toolCalls?.[0]?.status === "running", 30_000, "the command to run");
  const pid = storedRunnerPid(dataDir, ids);
  assert.ok(pid !== undefined, "a runner serves the run");
  await first.stop("SIGKILL");
  process.kill(pid, "SIGKILL");

  const second = await startHarnessServer({ dataDir, env });
  t.after(() => second.stop());
  let after = await scrape(second.url);
  await waitFor(
    async () => {
      after = await scrape(second.url);
      return value(after, "harness_runs_interrupted_at_start_total") === 1;
    },
    "the run left to be written down as interrupted",
    { intervalMs: 100 },
  );
  assert.equal(value(after, "harness_runs_started_total"), 0);
  for (const outcome of ["completed", "error", "cancelled", "interrupted"]) assert.equal(value(after, "harness_runs_ended_total", { outcome }), 0, outcome);
  assert.equal(value(after, "harness_runs_in_flight"), 0);
});

test("a session that cannot be opened is said so on a socket closed 1011, counted as closed at open and not as a connection", async (t) => {
  const dataDir = await newDataDir();
  const server = await startHarnessServer({ dataDir, env: modelEnv() });
  t.after(() => server.stop());
  const made = await fetch(`${server.url}/sessions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ userId: "carol", sessionId: "bad" }) });
  assert.equal(made.status, 201);
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(join(dataDir, "harness.db"));
  db.prepare("UPDATE sessions SET state = '{not json' WHERE user_id = 'carol' AND session_id = 'bad'").run();
  db.close();
  const before = await scrape(server.url);
  const client = await MinimalClient.connect(server.url, { userId: "carol", sessionId: "bad" });
  t.after(() => client.close());
  await client.waitFor((c) => c.closed, 10_000, "the socket to close");
  assert.equal(client.closeCode, 1011);
  assert.match(client.errors[0]?.message ?? "", /^cannot open session carol\/bad/);
  const after = await scrape(server.url);
  assert.equal(moved(before, after, "harness_websocket_closed_at_open_total", { reason: "cannot_open_session" }), 1);
  assert.equal(moved(before, after, "harness_websocket_connections_total"), 0);
  assert.equal(after.samples.filter((x) => x.name === "harness_websocket_handshakes_refused_total").length, 0, "no handshake refused");
});

test("GET /metrics asks for the shared token where one is set, and refuses a person's own token: metrics are the whole server's", async (t) => {
  const dataDir = await newDataDir();
  const shared = "shared-token-0123456789abcdef";
  const ann = "ann-token-0123456789abcdef";
  const file = join(dataDir, "tokens");
  await writeFile(file, `ann ${ann}\n`);
  const scraper = "metrics-token-0123456789abcdef";
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_TOKEN: shared, HARNESS_TOKENS_FILE: file, HARNESS_METRICS_TOKEN: scraper } });
  t.after(() => server.stop());

  const bare = await fetch(`${server.url}/metrics`);
  assert.equal(bare.status, 401);
  assert.equal((await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer wrong-token-0123456789" } })).status, 401);
  const personal = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ann}` } });
  assert.equal(personal.status, 403);
  assert.match(((await personal.json()) as { error: string }).error, /shared token/);
  await scrape(server.url, { authorization: `Bearer ${shared}` });
  assert.equal((await fetch(`${server.url}/metrics?token=${shared}`)).status, 200);
  await scrape(server.url, { authorization: `Bearer ${scraper}` });
  assert.doesNotMatch(server.output(), new RegExp(`${ann}|${shared}|${scraper}`));
});

test("HARNESS_METRICS_TOKEN lets its holder read /metrics and nothing else, on a server whose only other tokens are people's own", async (t) => {
  const dataDir = await newDataDir();
  const ann = "ann-token-0123456789abcdef";
  const scraper = "metrics-token-0123456789abcdef";
  const file = join(dataDir, "tokens");
  await writeFile(file, `ann ${ann}\n`);
  const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_TOKENS_FILE: file, HARNESS_METRICS_TOKEN: scraper } });
  t.after(() => server.stop());

  const before = await scrape(server.url, { authorization: `Bearer ${scraper}` });
  assert.equal((await fetch(`${server.url}/metrics?token=${scraper}`)).status, 200);
  assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
  assert.equal((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ann}` } })).status, 403);
  const bearer = { authorization: `Bearer ${scraper}` };
  for (const path of ["/sessions", "/health", "/sessions/s1"]) {
    const res = await fetch(`${server.url}${path}`, { headers: { ...bearer, "x-harness-user": "ann" } });
    assert.equal(res.status, 401, path);
    assert.match(((await res.json()) as { error: string }).error, /token/, path);
  }
  const del = await fetch(`${server.url}/sessions/s1`, { method: "DELETE", headers: { ...bearer, "content-type": "application/json" }, body: JSON.stringify({ userId: "ann" }) });
  assert.equal(del.status, 401);
  assert.match(await rawHttp(server.url, upgrade("/ws?userId=ann&sessionId=s1", bearer)), /^HTTP\/1\.1 401 /);
  assert.match(await rawHttp(server.url, upgrade(`/ws?userId=ann&sessionId=s1&token=${scraper}`)), /^HTTP\/1\.1 401 /);
  await assert.rejects(MinimalClient.connect(server.url, { userId: "ann", sessionId: "s1", token: scraper }), /401/);
  const client = await MinimalClient.connect(server.url, { userId: "ann", sessionId: "s1", token: ann });
  t.after(() => client.close());
  const after = await scrape(server.url, bearer);
  assert.equal(moved(before, after, "harness_websocket_handshakes_refused_total", { status: "401" }), 3);
  assert.equal(moved(before, after, "harness_websocket_connections_total"), 1);
  assert.doesNotMatch(server.output(), new RegExp(`${ann}|${scraper}`));
});

test("harness serve refuses a metrics token that is short, not printable, or another token too, saying so", async () => {
  const dataDir = await newDataDir();
  const ann = "ann-token-0123456789abcdef";
  const shared = "shared-token-0123456789abcdef";
  const file = join(dataDir, "tokens");
  await writeFile(file, `ann ${ann}\n`);
  const start = async (env: Record<string, string>) => {
    const server = await startHarnessServer({ dataDir, env: { ...modelEnv(), HARNESS_TOKENS_FILE: file, ...env } });
    await server.stop();
  };
  await assert.rejects(start({ HARNESS_METRICS_TOKEN: "short-token" }), /HARNESS_METRICS_TOKEN has 11 characters: use at least 16/);
  await assert.rejects(start({ HARNESS_METRICS_TOKEN: "a metrics token with spaces" }), /HARNESS_METRICS_TOKEN must be printable ASCII without spaces/);
  await assert.rejects(start({ HARNESS_METRICS_TOKEN: ann }), /HARNESS_METRICS_TOKEN is also ann's token in HARNESS_TOKENS_FILE/);
  await assert.rejects(start({ HARNESS_TOKEN: shared, HARNESS_METRICS_TOKEN: shared }), /HARNESS_METRICS_TOKEN is also HARNESS_TOKEN/);
});
