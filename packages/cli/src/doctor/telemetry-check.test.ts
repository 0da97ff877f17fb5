// `harness doctor`'s OpenTelemetry and server log checks end to end: the real command against the
// fake collector, in a home and project of their own.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { freePort, startFakeAnthropic, startFakeOtlpCollector } from "@harness/test-utils";
import { harness, tempDir } from "../test-support.ts";

const SECRET = "Bearer otlp-doctor-secret-0123456789";

/** The variables telemetry reads, unset unless a test sets them. */
const NO_OTEL = Object.fromEntries(
  ["CLAUDE_CODE_ENABLE_TELEMETRY", "OTEL_METRICS_EXPORTER", "OTEL_LOGS_EXPORTER", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS", "OTEL_METRIC_EXPORT_INTERVAL", "OTEL_LOGS_EXPORT_INTERVAL", "CLAUDE_CODE_ENHANCED_TELEMETRY_BETA", "OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_TRACES_EXPORT_INTERVAL", "HARNESS_LOG_FORMAT", "HARNESS_LOG_LEVEL", "HARNESS_LOG_TIMESTAMPS"].map((name) => [name, ""]),
);

/** `harness doctor` in a home and project of its own, with a model that answers, and `env` over it. */
async function doctor(t: test.TestContext, env: Record<string, string>, ...args: string[]) {
  return doctorIn(t, env, () => {}, ...args);
}

/** As doctor, with `prepare` given the home and project first. */
async function doctorIn(t: test.TestContext, env: Record<string, string>, prepare: (home: string, project: string) => void, ...args: string[]) {
  const fake = await startFakeAnthropic({ replies: [{ text: "OK" }] });
  t.after(() => fake.close());
  const dir = tempDir(t);
  const home = join(dir, "home");
  const project = join(dir, "project");
  mkdirSync(join(home, ".claude"), { recursive: true });
  mkdirSync(join(project, ".claude"), { recursive: true });
  prepare(home, project);
  const base = { HOME: home, HARNESS_DATA_DIR: join(dir, "data"), PORT: String(await freePort()), HARNESS_MODEL: "", ANTHROPIC_MODEL: "", HARNESS_TOKEN: "", HARNESS_TOKENS_FILE: "", ANTHROPIC_API_KEY: "sk-ant-doctor-key-1234567890", ANTHROPIC_BASE_URL: fake.url };
  return harness(["doctor", "--cwd", project, ...args], { ...base, ...NO_OTEL, ...env }).result;
}

function lines(stdout: string, check: string): string[] {
  return stdout.split("\n").filter((line) => /^[✓!✗] /.test(line) && line.slice(2).startsWith(`${check}:`));
}

/** Telemetry on, both signals over OTLP to `url`. */
const on = (url: string, more: Record<string, string> = {}) => ({ CLAUDE_CODE_ENABLE_TELEMETRY: "1", OTEL_METRICS_EXPORTER: "otlp", OTEL_LOGS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: url, ...more });

test("telemetry off: one ✓ line saying so, and no log settings line when none is set", async (t) => {
  const { code, stdout } = await doctor(t, {});
  assert.equal(code, 0, stdout);
  assert.deepEqual(lines(stdout, "telemetry"), ["✓ telemetry: off (CLAUDE_CODE_ENABLE_TELEMETRY is not set)"]);
  assert.deepEqual(lines(stdout, "telemetry endpoint"), []);
  assert.deepEqual(lines(stdout, "server log"), []);
});

test("telemetry on and the collector reachable: each signal's exporter, protocol, endpoint and interval, an empty export to each endpoint ✓, the header values never shown", async (t) => {
  const collector = await startFakeOtlpCollector();
  t.after(() => collector.close());
  const { code, stdout, stderr } = await doctor(t, on(collector.url, { OTEL_EXPORTER_OTLP_HEADERS: `Authorization=${encodeURIComponent(SECRET)}`, OTEL_LOGS_EXPORTER: "otlp,console", OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: "http/json" }));
  assert.equal(code, 0, stdout + stderr);
  assert.deepEqual(lines(stdout, "telemetry"), [
    `✓ telemetry: metrics: otlp (http/protobuf) to ${collector.url}/v1/metrics, headers Authorization (values hidden), every 60000 ms`,
    `✓ telemetry: logs: otlp (http/json) to ${collector.url}/v1/logs, headers Authorization (values hidden), and console, every 5000 ms`,
  ]);
  assert.deepEqual(lines(stdout, "telemetry endpoint"), [
    `✓ telemetry endpoint: ${collector.url}/v1/metrics takes an empty metrics export (http/protobuf)`,
    `✓ telemetry endpoint: ${collector.url}/v1/logs takes an empty logs export (http/json)`,
  ]);
  assert.deepEqual(collector.requests.map((r) => [r.signal, r.protocol, r.headers.authorization]), [["metrics", "http/protobuf", SECRET], ["logs", "http/json", SECRET]]);
  assert.deepEqual(collector.points(), []);
  assert.deepEqual(collector.events(), []);
  assert.ok(!stdout.includes(SECRET) && !stdout.includes(encodeURIComponent(SECRET)));
});

test("traces, when the beta turns them on, are listed and checked with an empty traces export, in http/json too", async (t) => {
  const collector = await startFakeOtlpCollector();
  t.after(() => collector.close());
  const { code, stdout, stderr } = await doctor(t, { ...NO_OTEL, CLAUDE_CODE_ENABLE_TELEMETRY: "1", CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1", OTEL_TRACES_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" });
  assert.equal(code, 0, stdout + stderr);
  assert.deepEqual(lines(stdout, "telemetry"), [`✓ telemetry: traces: otlp (http/json) to ${collector.url}/v1/traces, every 5000 ms`]);
  assert.deepEqual(lines(stdout, "telemetry endpoint"), [`✓ telemetry endpoint: ${collector.url}/v1/traces takes an empty traces export (http/json)`]);
  assert.deepEqual(collector.requests.map((r) => [r.signal, r.protocol]), [["traces", "http/json"]]);
  assert.deepEqual(collector.spans(), []);
});

test("a collector answering 401: ✗ naming OTEL_EXPORTER_OTLP_HEADERS, exit 1", async (t) => {
  const collector = await startFakeOtlpCollector();
  t.after(() => collector.close());
  collector.push({ status: 401, body: "missing or bad token" });
  const { code, stdout } = await doctor(t, on(collector.url, { OTEL_LOGS_EXPORTER: "none" }));
  assert.equal(code, 1, stdout);
  assert.deepEqual(lines(stdout, "telemetry endpoint"), [`✗ telemetry endpoint: ${collector.url}/v1/metrics refused the export: the collector answered 401: missing or bad token`]);
  assert.match(stdout, /\n {4}→ set OTEL_EXPORTER_OTLP_HEADERS \(or OTEL_EXPORTER_OTLP_METRICS_HEADERS\) to the credentials the collector takes \(header names and percent-encoded values, comma separated\)\n/);
});

test("a collector answering 404 (the signal's path given twice): ✗ naming the path and the variable", async (t) => {
  const collector = await startFakeOtlpCollector();
  t.after(() => collector.close());
  const { code, stdout } = await doctor(t, on(`${collector.url}/v1/logs`, { OTEL_METRICS_EXPORTER: "none" }));
  assert.equal(code, 1, stdout);
  assert.deepEqual(lines(stdout, "telemetry endpoint"), [`✗ telemetry endpoint: ${collector.url}/v1/logs/v1/logs answered 404: the collector has nothing at the path /v1/logs/v1/logs`]);
  assert.match(stdout, /→ OTEL_EXPORTER_OTLP_ENDPOINT is the collector's base URL \(Harness adds \/v1\/logs\): give it without \/v1\/logs, or give the whole URL in OTEL_EXPORTER_OTLP_LOGS_ENDPOINT\n/);
});

test("a collector that is down: ✗ naming the endpoint's variable, within the bound said", async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  const { code, stdout } = await doctor(t, on(url, { OTEL_LOGS_EXPORTER: "none" }));
  assert.equal(code, 1, stdout);
  assert.deepEqual(lines(stdout, "telemetry endpoint"), [`✗ telemetry endpoint: ${url}/v1/metrics cannot be reached (ECONNREFUSED)`]);
  assert.match(stdout, /→ start the collector, or set OTEL_EXPORTER_OTLP_ENDPOINT to where it listens\n/);
});

test("bad values: each telemetry note ! naming its variable, each bad log setting ✗ with the values allowed, good ones listed; in --json too", async (t) => {
  const collector = await startFakeOtlpCollector();
  t.after(() => collector.close());
  const env = { ...on(collector.url, { OTEL_LOGS_EXPORTER: "otlp,prometheus", OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml", OTEL_METRIC_EXPORT_INTERVAL: "soon" }), HARNESS_LOG_FORMAT: "yaml", HARNESS_LOG_LEVEL: "DEBUG", HARNESS_LOG_TIMESTAMPS: "yes" };
  const { code, stdout } = await doctor(t, env);
  assert.equal(code, 1, stdout);
  const notes = lines(stdout, "telemetry").filter((line) => line.startsWith("!"));
  assert.deepEqual(notes, [
    `! telemetry: OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds above 0, got "soon"; taking 60000`,
    `! telemetry: OTEL_EXPORTER_OTLP_PROTOCOL must be one of grpc, http/json, http/protobuf, got "http/xml"; sending metrics with http/protobuf`,
    `! telemetry: OTEL_LOGS_EXPORTER: Harness has no prometheus exporter (use otlp with a collector that Prometheus scrapes); it is left out`,
    `! telemetry: OTEL_EXPORTER_OTLP_PROTOCOL must be one of grpc, http/json, http/protobuf, got "http/xml"; sending logs with http/protobuf`,
  ]);
  assert.deepEqual(lines(stdout, "server log"), [
    `✗ server log: HARNESS_LOG_FORMAT must be text or json, got "yaml"`,
    `✗ server log: HARNESS_LOG_TIMESTAMPS must be 1 or 0, got "yes"`,
    "✓ server log: HARNESS_LOG_LEVEL=debug",
  ]);
  assert.match(stdout, /✗ server log: HARNESS_LOG_FORMAT.*\n {4}→ mend HARNESS_LOG_FORMAT, or unset it: harness serve refuses to start with it\n/);
  // The server's other checks still run.
  assert.equal(lines(stdout, "server settings").length, 1);

  const json = JSON.parse((await doctor(t, env, "--json")).stdout) as { check: string; status: string; detail: string; remedy: string | null }[];
  assert.deepEqual(json.filter((c) => c.check === "server log").map((c) => c.status), ["fail", "fail", "ok"]);
  assert.equal(json.filter((c) => c.check === "telemetry" && c.status === "warn").length, 4);
  assert.deepEqual(json.filter((c) => c.check === "telemetry endpoint").map((c) => c.status), ["ok", "ok"]);
});

test("over gRPC: the two signals share one endpoint, checked once; a collector holding the request ✗ within the 5 s said", async (t) => {
  const collector = await startFakeOtlpCollector({ grpc: true });
  t.after(() => collector.close());
  const grpc = on(collector.grpcUrl!, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
  const good = await doctor(t, grpc);
  assert.equal(good.code, 0, good.stdout);
  assert.deepEqual(lines(good.stdout, "telemetry endpoint"), [`✓ telemetry endpoint: ${collector.grpcUrl}/ takes an empty metrics export (grpc)`]);
  assert.deepEqual(collector.requests.map((r) => [r.signal, r.protocol]), [["metrics", "grpc"]]);

  collector.push({ hang: true });
  const started = Date.now();
  const held = await doctor(t, grpc);
  assert.ok(Date.now() - started < 15_000);
  assert.deepEqual(lines(held.stdout, "telemetry endpoint"), [`✗ telemetry endpoint: ${collector.grpcUrl}/ did not answer within 5 s`]);
  assert.match(held.stdout, /→ check that the collector is up and that OTEL_EXPORTER_OTLP_ENDPOINT names it\n/);
});

test("telemetry turned on by the user's settings' env is checked as a run takes it; a repository's settings do not turn it on", async (t) => {
  const collector = await startFakeOtlpCollector();
  t.after(() => collector.close());
  const settings = JSON.stringify({ env: { ...on(collector.url), OTEL_LOGS_EXPORTER: "none" } });
  const user = await doctorIn(t, {}, (home) => writeFileSync(join(home, ".claude", "settings.json"), settings));
  assert.deepEqual(lines(user.stdout, "telemetry endpoint"), [`✓ telemetry endpoint: ${collector.url}/v1/metrics takes an empty metrics export (http/protobuf)`]);
  const repository = await doctorIn(t, {}, (_home, project) => writeFileSync(join(project, ".claude", "settings.json"), settings));
  assert.deepEqual(lines(repository.stdout, "telemetry"), ["✓ telemetry: off (CLAUDE_CODE_ENABLE_TELEMETRY is not set)"]);
  assert.equal(collector.requests.length, 1);
});
