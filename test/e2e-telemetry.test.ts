// OpenTelemetry export end to end, as Claude Code's users configure it (CLAUDE_CODE_ENABLE_TELEMETRY,
// OTEL_*): `harness run` and `harness serve`'s runners, the model faked at the wire, a fake OTLP
// collector receiving what they send, in each protocol.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findClaudeCodeExecutable } from "@harness/runner";
import { claudeCodeRoute, freePort, startFakeAnthropic, startHarnessServer, MinimalClient, type EventRecord, type MetricPoint } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../packages/cli/src/test-support.ts";
import { bashThenAnswer, collector } from "./telemetry-support.ts";

const otel = (endpoint: string, more: Record<string, string> = {}) => ({
  CLAUDE_CODE_ENABLE_TELEMETRY: "1",
  OTEL_METRICS_EXPORTER: "otlp",
  OTEL_LOGS_EXPORTER: "otlp",
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  ...more,
});

const point = (points: MetricPoint[], name: string, attributes: Record<string, unknown>) =>
  points.find((p) => p.name === name && Object.entries(attributes).every(([k, v]) => p.attributes[k] === v));
const named = (events: EventRecord[], name: string) => events.filter((e) => e.eventName === `harness.${name}`);

test("harness run sends token usage, cost, the prompt's event without its text, the API request and Bash's result to the collector (http/protobuf, the default)", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: bashThenAnswer("telemetry-ok") }));
  const otlp = await collector(t);
  const dir = tempDir(t);
  const run = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "--model", "claude-sonnet-4-5", "say ok please"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    ...otel(otlp.url, { OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20sekrit-collector-token", OTEL_RESOURCE_ATTRIBUTES: "team.id=platform,cost_center=eng%2C42" }),
  }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /It printed telemetry-ok\./);

  assert.ok(otlp.requests.length >= 2, "metrics and logs were sent before the run's exit");
  for (const request of otlp.requests) {
    assert.equal(request.protocol, "http/protobuf");
    assert.equal(request.headers["content-type"], "application/x-protobuf");
    assert.equal(request.headers.authorization, "Bearer sekrit-collector-token");
  }
  const points = otlp.points();
  const model = "claude-sonnet-4-5";
  assert.equal(point(points, "harness.token.usage", { type: "input", model })?.value, 250);
  assert.equal(point(points, "harness.token.usage", { type: "output", model })?.value, 30);
  assert.equal(point(points, "harness.token.usage", { type: "cacheRead", model })?.value, 40);
  const cost = point(points, "harness.cost.usage", { model });
  assert.ok(cost && cost.value > 0, "the cost of the model's calls is counted");
  assert.equal(cost!.unit, "USD");
  assert.equal(point(points, "harness.session.count", {})?.value, 1);
  for (const p of points) {
    assert.equal(p.kind, "sum");
    assert.ok(p.monotonic);
    assert.equal(p.temporality, 1, "delta, as Claude Code's are by default");
    assert.equal(p.resource["service.name"], "harness");
    assert.equal(typeof p.resource["service.version"], "string");
    assert.equal(p.resource["team.id"], "platform");
    assert.equal(p.resource.cost_center, "eng,42");
    assert.equal(typeof p.attributes["session.id"], "string", "session.id is on metrics by default");
    assert.equal(p.attributes["app.version"], undefined, "app.version is off metrics by default");
  }

  const events = otlp.events();
  const [prompt] = named(events, "user_prompt");
  assert.equal(prompt.attributes.prompt_length, "say ok please".length);
  assert.equal(prompt.attributes.prompt, undefined, "the prompt's text is left out by default");
  assert.equal(typeof prompt.attributes["session.id"], "string");
  assert.equal(typeof prompt.attributes["app.version"], "string");
  const requests = named(events, "api_request");
  assert.equal(requests.length, 2);
  assert.equal(requests[0].attributes.model, model);
  assert.equal(requests[0].attributes.input_tokens, 100);
  assert.equal(requests[1].attributes.cache_read_tokens, 40);
  assert.ok((requests[0].attributes.cost_usd as number) > 0);
  assert.equal(typeof requests[0].attributes.duration_ms, "number");
  const [bash] = named(events, "tool_result");
  assert.equal(bash.attributes.tool_name, "Bash");
  assert.equal(bash.attributes.success, true);
  assert.equal(typeof bash.attributes.duration_ms, "number");
  assert.equal(bash.attributes.tool_parameters, undefined, "a tool's input only with OTEL_LOG_TOOL_DETAILS=1");
  assert.deepEqual(named(events, "tool_decision").map((e) => [e.attributes.tool_name, e.attributes.decision, e.attributes.source]), [["Bash", "accept", "config"]], "--allowedTools decided it");
  assert.deepEqual(new Set(events.map((e) => e.attributes["session.id"])).size, 1, "one session.id on every event");
});

test("with OTEL_LOG_USER_PROMPTS=1 over http/json the prompt's text is in its event, and a tool's input with OTEL_LOG_TOOL_DETAILS=1", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: bashThenAnswer("telemetry-ok") }));
  const otlp = await collector(t);
  const dir = tempDir(t);
  const run = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "say ok please"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    ...otel(otlp.url, { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_LOG_USER_PROMPTS: "1", OTEL_LOG_TOOL_DETAILS: "1" }),
  }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.ok(otlp.requests.every((r) => r.protocol === "http/json" && r.headers["content-type"] === "application/json"));
  const events = otlp.events();
  assert.equal(named(events, "user_prompt")[0].attributes.prompt, "say ok please");
  assert.match(String(named(events, "tool_result")[0].attributes.tool_parameters), /echo telemetry-ok/);
  assert.ok(otlp.points().some((p) => p.name === "harness.token.usage"));
});

test("over grpc the same protobuf reaches the collector's Export methods", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: bashThenAnswer("telemetry-ok") }));
  const otlp = await collector(t, { grpc: true });
  const dir = tempDir(t);
  const run = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "say ok please"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    ...otel(otlp.grpcUrl!, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_HEADERS: "x-team=blue" }),
  }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(new Set(otlp.requests.map((r) => r.protocol)), new Set(["grpc"]));
  assert.equal(otlp.requests[0].headers["x-team"], "blue");
  assert.equal(named(otlp.events(), "tool_result")[0].attributes.tool_name, "Bash");
  assert.ok(otlp.points().some((p) => p.name === "harness.cost.usage"));
});

test("a model request that failed and was tried again reaches the collector as an api_error, with its status and attempt", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ kind: "http-error", status: 529 }, ...bashThenAnswer("telemetry-ok")] }));
  const otlp = await collector(t);
  const dir = tempDir(t);
  const run = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "--model", "claude-sonnet-4-5", "say ok please"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    HARNESS_RETRY_BASE_MS: "1",
    HARNESS_MODEL_RETRIES: "2",
    ...otel(otlp.url),
  }).result;
  assert.equal(run.code, 0, run.stderr);
  const errors = named(otlp.events(), "api_error");
  assert.deepEqual(errors.map((e) => [e.attributes.model, e.attributes.status_code, e.attributes.attempt]), [["claude-sonnet-4-5", "529", 1]]);
  assert.match(String(errors[0].attributes.error), /529/);
  const order = otlp.events().map((e) => e.eventName).filter((name) => name === "harness.api_error" || name === "harness.api_request");
  assert.deepEqual(order.slice(0, 2), ["harness.api_error", "harness.api_request"]);
  assert.equal(named(otlp.events(), "api_request").length, 2, "the failed attempt is no api_request");
});

test("a model request refused for good (400, not tried again) reaches the collector as an api_error with its status, and the run fails", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ kind: "http-error", status: 400 }] }));
  const otlp = await collector(t);
  const dir = tempDir(t);
  const run = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "say ok please"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    HARNESS_RETRY_BASE_MS: "1",
    ...otel(otlp.url),
  }).result;
  assert.notEqual(run.code, 0);
  assert.equal(fake.requests.length, 1, "a 400 is not tried again");
  const errors = named(otlp.events(), "api_error");
  assert.deepEqual(errors.map((e) => [e.attributes.model, e.attributes.status_code, e.attributes.attempt]), [["claude-sonnet-4-5", "400", 1]]);
  assert.equal(named(otlp.events(), "api_request").length, 0);
});

test("a model request that fails on every attempt is an api_error per attempt, the last the run's failure", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ kind: "http-error", status: 529 }, { kind: "http-error", status: 529 }] }));
  const otlp = await collector(t);
  const dir = tempDir(t);
  const run = await harness(["run", "--cwd", dir, "--model", "claude-sonnet-4-5", "say ok please"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    HARNESS_RETRY_BASE_MS: "1",
    HARNESS_MODEL_RETRIES: "1",
    ...otel(otlp.url),
  }).result;
  assert.notEqual(run.code, 0);
  const errors = named(otlp.events(), "api_error");
  assert.deepEqual(errors.map((e) => [e.attributes.status_code, e.attributes.attempt]), [["529", 1], ["529", 2]]);
  assert.match(String(errors[1].attributes.error), /gave up after 2 attempts/);
});

test("with telemetry off no request reaches the collector, whatever OTEL_* say", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: bashThenAnswer("telemetry-ok") }));
  const otlp = await collector(t);
  const dir = tempDir(t);
  const { CLAUDE_CODE_ENABLE_TELEMETRY: _on, ...rest } = otel(otlp.url);
  const run = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "say ok please"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, CLAUDE_CODE_ENABLE_TELEMETRY: "", ...rest }).result;
  assert.equal(run.code, 0, run.stderr);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(otlp.requests.length, 0);
});

test("a collector that never answers, or is not there, changes nothing of the run and holds its exit at most ~2 s", async (t) => {
  const otlp = await collector(t);
  // Every request is held open: the exit's flush gives up at its bound.
  otlp.push(...Array.from({ length: 10 }, () => ({ hang: true })));
  const closedPort = await freePort();
  const dir = tempDir(t);
  // How long the exit took after the answer was printed: the start of the process and the run itself
  // (slow and uneven on a busy machine) are not counted.
  const timed = async (env: Record<string, string>) => {
    const fake = await withFake(t, startFakeAnthropic({ replies: bashThenAnswer("telemetry-ok") }));
    let answered: number | undefined;
    const onStdout = (text: string) => void (answered ??= /It printed telemetry-ok\./.test(text) ? performance.now() : undefined);
    const run = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "say ok please"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, ...env }, { onStdout }).result;
    return { ...run, ms: performance.now() - (answered ?? 0) };
  };
  const plain = await timed({ CLAUDE_CODE_ENABLE_TELEMETRY: "" });
  const hanging = await timed(otel(otlp.url));
  const down = await timed(otel(`http://127.0.0.1:${closedPort}`, { HARNESS_DEBUG: "telemetry" }));
  for (const run of [plain, hanging, down]) {
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /It printed telemetry-ok\./);
  }
  assert.equal(hanging.stdout, plain.stdout);
  assert.ok(otlp.requests.length >= 1, "the exports were tried");
  assert.ok(hanging.ms - plain.ms < 3000, `the exit waited ${Math.round(hanging.ms - plain.ms)} ms more`);
  assert.ok(down.ms - plain.ms < 3000, `the exit waited ${Math.round(down.ms - plain.ms)} ms more`);
});

test("a mistyped setting is named on stderr and its default taken; the run goes on", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: bashThenAnswer("telemetry-ok") }));
  const otlp = await collector(t);
  const dir = tempDir(t);
  const run = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "say ok please"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    ...otel(otlp.url, { OTEL_METRICS_EXPORTER: "otlp,statsd", OTEL_LOGS_EXPORT_INTERVAL: "soon", OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%ZZtopsecretvalue,broken" }),
  }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /OTEL_METRICS_EXPORTER: "statsd" is not an exporter/);
  assert.match(run.stderr, /OTEL_LOGS_EXPORT_INTERVAL must be a whole number of milliseconds above 0, got "soon"; taking 5000/);
  assert.match(run.stderr, /OTEL_EXPORTER_OTLP_HEADERS: entry 1 \(Authorization\): the value is not well percent-encoded/);
  assert.match(run.stderr, /OTEL_EXPORTER_OTLP_HEADERS: entry 2 \(?.*is not key=value/);
  assert.doesNotMatch(run.stderr, /topsecretvalue/);
  assert.ok(otlp.points().some((p) => p.name === "harness.token.usage"));
});

test("a refusing collector is told once in the debug log, with the header's secret hidden even where the collector echoes it", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: bashThenAnswer("telemetry-ok") }));
  const otlp = await collector(t);
  otlp.push(...Array.from({ length: 4 }, () => ({ status: 401, body: "token Bearer sekrit-collector-token-42 is not known here" })));
  const dir = tempDir(t);
  const debugFile = join(dir, "debug.log");
  const run = await harness(["run", "--cwd", dir, "--allowedTools", "Bash", "--debug-file", debugFile, "say ok please"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    ...otel(otlp.url, { OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20sekrit-collector-token-42" }),
  }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /It printed telemetry-ok\./);
  const log = readFileSync(debugFile, "utf8");
  assert.match(log, /\[telemetry\] metrics not sent \(the collector answered 401: token \*\*\* is not known here\)/);
  assert.equal(log.match(/logs not sent/g)?.length, 1);
  assert.doesNotMatch(log + run.stderr + run.stdout, /sekrit-collector-token-42/);
});

test("harness serve's runners send on their intervals, with the Harness user and session on what they send", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: bashThenAnswer("telemetry-ok") }));
  const otlp = await collector(t);
  const dataDir = tempDir(t);
  const server = await startHarnessServer({
    dataDir,
    env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, ...otel(otlp.url, { OTEL_METRIC_EXPORT_INTERVAL: "200", OTEL_LOGS_EXPORT_INTERVAL: "200", OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: "cumulative" }) },
  });
  t.after(() => server.stop());
  await runInSession(t, server.url, { userId: "alice", sessionId: "s-telemetry" }, 30_000);
  const tool = await otlp.waitFor(() => named(otlp.events(), "tool_result")[0], 10_000, "the tool_result event");
  assert.equal(tool.attributes.tool_name, "Bash");
  assert.equal(tool.attributes.success, true);
  assert.equal(tool.attributes["user.id"], "alice");
  assert.equal(tool.attributes["session.id"], "s-telemetry");
  // Sums are cumulative, as asked: the last export has both calls' tokens.
  const input = await otlp.waitFor(() => otlp.points().findLast((p) => p.name === "harness.token.usage" && p.attributes.type === "input" && p.value === 250), 10_000, "both calls' input tokens");
  assert.equal(input.attributes["user.id"], "alice");
  assert.equal(input.attributes["session.id"], "s-telemetry");
});

test("under the claude-code backend the user's settings turn Harness's export on, Harness reports the run from its events, and nothing comes from Claude Code's own exporter", { skip: findClaudeCodeExecutable() ? false : "the Claude Code binary is not installed", timeout: 120_000 }, async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ route: claudeCodeRoute }));
  fake.push(...bashThenAnswer("telemetry-ok"));
  const otlp = await collector(t);
  const dataDir = tempDir(t);
  mkdirSync(join(dataDir, "home", ".claude"), { recursive: true });
  writeFileSync(join(dataDir, "home", ".claude", "settings.json"), JSON.stringify({ env: { ...otel(otlp.url), OTEL_METRIC_EXPORT_INTERVAL: "200", OTEL_LOGS_EXPORT_INTERVAL: "200", OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: "cumulative" } }));
  // Claude Code reads a workspace's settings (not the user's: it has a home of its own), and these
  // would turn its own exporter on, to the same collector.
  const server = await startHarnessServer({ dataDir, env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HARNESS_BACKEND: "claude-code" } });
  t.after(() => server.stop());
  await runInSession(t, server.url, { userId: "bob", sessionId: "s-cc" }, 60_000);
  const tool = await otlp.waitFor(() => named(otlp.events(), "tool_result")[0], 10_000, "the tool_result event");
  assert.equal(tool.attributes.tool_name, "Bash");
  assert.equal(tool.attributes.success, true);
  assert.equal(tool.attributes["user.id"], "bob");
  await otlp.waitFor(() => otlp.points().findLast((p) => p.name === "harness.token.usage" && p.attributes.type === "input" && p.value === 250), 10_000, "both calls' input tokens");
  await new Promise((r) => setTimeout(r, 1000));
  const names = [...otlp.points().map((p) => p.name), ...otlp.events().map((e) => e.eventName || e.body)];
  assert.deepEqual(names.filter((name) => !name.startsWith("harness.")), [], "nothing from Claude Code's own exporter");
});

/** One run of "say ok please" in `who`'s session of a `harness serve`, in fullAuto, to its end. */
async function runInSession(t: { after(fn: () => unknown): void }, url: string, who: { userId: string; sessionId: string }, timeoutMs: number): Promise<void> {
  const client = await MinimalClient.connect(url, who);
  t.after(() => client.close());
  await client.waitForState(() => true);
  client.send({ type: "configure", config: { permissionMode: "fullAuto" } });
  client.send({ type: "submit", prompt: "say ok please" });
  await client.waitForState((s) => s.status === "idle" && s.messages.length === 2 && s.messages[1].status !== "running", timeoutMs, "the run to end");
}

