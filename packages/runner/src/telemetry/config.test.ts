// Reading the OTEL_* settings: what each variable gives, and what a value that cannot be used gets.
import { test } from "node:test";
import assert from "node:assert/strict";
import { telemetryConfig } from "./config.ts";

const on = (more: Record<string, string>) => telemetryConfig({ CLAUDE_CODE_ENABLE_TELEMETRY: "1", ...more });

test("off unless CLAUDE_CODE_ENABLE_TELEMETRY turns it on, whatever OTEL_* say", () => {
  assert.equal(telemetryConfig({ OTEL_METRICS_EXPORTER: "otlp" }), undefined);
  assert.equal(telemetryConfig({ CLAUDE_CODE_ENABLE_TELEMETRY: "0", OTEL_METRICS_EXPORTER: "otlp" }), undefined);
  assert.ok(telemetryConfig({ CLAUDE_CODE_ENABLE_TELEMETRY: "true", OTEL_METRICS_EXPORTER: "otlp" })?.metrics);
});

test("the defaults: http/protobuf to localhost:4318's /v1/<signal>, metrics every 60 s and logs every 5 s, prompts left out", () => {
  const config = on({ OTEL_METRICS_EXPORTER: "otlp", OTEL_LOGS_EXPORTER: "otlp" })!;
  assert.deepEqual(config.metrics, { otlp: { protocol: "http/protobuf", endpoint: "http://localhost:4318/v1/metrics", headers: {} }, console: false, intervalMs: 60_000 });
  assert.deepEqual(config.logs, { otlp: { protocol: "http/protobuf", endpoint: "http://localhost:4318/v1/logs", headers: {} }, console: false, intervalMs: 5_000 });
  assert.equal(config.logUserPrompts, false);
  assert.deepEqual(config.include, { sessionId: true, version: false, accountUuid: true });
  assert.equal(config.temporality, "delta", "as Claude Code's default");
  assert.deepEqual(config.notes, []);
});

test("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE picks delta or cumulative sums (lowmemory: delta, as for counters); another value is named", () => {
  const temporality = (value: string) => on({ OTEL_METRICS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: value })!;
  assert.equal(temporality("cumulative").temporality, "cumulative");
  assert.equal(temporality(" Cumulative ").temporality, "cumulative");
  assert.equal(temporality("DELTA").temporality, "delta");
  assert.equal(temporality("lowmemory").temporality, "delta");
  const wrong = temporality("cumulatve");
  assert.equal(wrong.temporality, "delta");
  assert.deepEqual(wrong.notes, ['OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE must be delta, cumulative or lowmemory, got "cumulatve"; taking delta']);
});

test("a signal's own protocol, endpoint and headers win over the common ones; grpc takes the endpoint as it is", () => {
  const config = on({
    OTEL_METRICS_EXPORTER: "otlp,console",
    OTEL_LOGS_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4317",
    OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: "http/json",
    OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: "https://logs.example/custom/path",
    OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%20abc,x-team=a",
    OTEL_EXPORTER_OTLP_LOGS_HEADERS: "x-team=b",
    OTEL_METRIC_EXPORT_INTERVAL: "10000",
  })!;
  assert.deepEqual(config.metrics, { otlp: { protocol: "grpc", endpoint: "http://collector:4317/", headers: { Authorization: "Bearer abc", "x-team": "a" } }, console: true, intervalMs: 10_000 });
  assert.deepEqual(config.logs?.otlp, { protocol: "http/json", endpoint: "https://logs.example/custom/path", headers: { Authorization: "Bearer abc", "x-team": "b" } });
  assert.deepEqual(config.secrets.sort(), ["Bearer abc", "Bearer abc", "a", "b"].sort());
});

test("a header's value keeps every = after the first, and is percent-decoded after the split on commas", () => {
  const config = on({ OTEL_LOGS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20dXNlcjpwYXNz==, x-list = a%2Cb%3Dc " })!;
  assert.deepEqual(config.logs?.otlp?.headers, { Authorization: "Basic dXNlcjpwYXNz==", "x-list": "a,b=c" });
  assert.deepEqual(config.notes, []);
});

test("a common endpoint with a path gets /v1/<signal> after its path, once, its query kept", () => {
  assert.equal(on({ OTEL_METRICS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example/base/" })!.metrics?.otlp?.endpoint, "https://otel.example/base/v1/metrics");
  assert.equal(on({ OTEL_LOGS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example/base?tenant=a" })!.logs?.otlp?.endpoint, "https://otel.example/base/v1/logs?tenant=a");
});

test("values that cannot be used are named, by variable, and the default taken; a header's value never", () => {
  const config = on({
    OTEL_METRICS_EXPORTER: "otlp, prometheus ,bogus",
    OTEL_LOGS_EXPORTER: "console",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/xml",
    OTEL_METRIC_EXPORT_INTERVAL: "-5",
    OTEL_LOGS_EXPORT_INTERVAL: "1.5",
    OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Bearer%zzsecretsecret,novalue,=x,bad header=1",
    OTEL_LOG_USER_PROMPTS: "maybe",
    OTEL_RESOURCE_ATTRIBUTES: "team=a%2Cb,oops",
  })!;
  assert.deepEqual(config.notes, [
    "OTEL_EXPORTER_OTLP_HEADERS: entry 1 (Authorization): the value is not well percent-encoded; it is left out",
    "OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not key=value; it is left out",
    "OTEL_EXPORTER_OTLP_HEADERS: entry 3 is not key=value; it is left out",
    "OTEL_EXPORTER_OTLP_HEADERS: entry 4 (bad header): the key is not a header name; it is left out",
    'OTEL_METRICS_EXPORTER: Harness has no prometheus exporter (use otlp with a collector that Prometheus scrapes); it is left out',
    'OTEL_METRICS_EXPORTER: "bogus" is not an exporter (they are otlp, console, none); it is left out',
    'OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds above 0, got "-5"; taking 60000',
    'OTEL_EXPORTER_OTLP_PROTOCOL must be one of grpc, http/json, http/protobuf, got "http/xml"; sending metrics with http/protobuf',
    'OTEL_LOGS_EXPORT_INTERVAL must be a whole number of milliseconds above 0, got "1.5"; taking 5000',
    'OTEL_LOG_USER_PROMPTS must be 1 or 0 (true or false), got "maybe"; taking 0',
    "OTEL_RESOURCE_ATTRIBUTES: entry 2 is not key=value; it is left out",
  ]);
  assert.ok(!config.notes.join("\n").includes("secretsecret"));
  assert.deepEqual(config.metrics?.otlp?.headers, {});
  assert.equal(config.metrics?.otlp?.protocol, "http/protobuf");
  assert.deepEqual(config.logs, { console: true, intervalMs: 5_000 });
  assert.deepEqual(config.resource, { team: "a,b" });
});

test("an endpoint that is not an http URL leaves OTLP out for that signal, saying so", () => {
  const config = on({ OTEL_METRICS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" })!;
  assert.equal(config.metrics, undefined);
  assert.match(config.notes[0], /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http:\/\/ or https:\/\/ URL/);
});

test("an endpoint with a user and password in it leaves OTLP out for that signal, naming the variable and never the password", () => {
  const config = on({ OTEL_METRICS_EXPORTER: "otlp", OTEL_LOGS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "https://ann:s3cret-pass@otel.example/v1/metrics", OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example" })!;
  assert.equal(config.metrics, undefined);
  assert.equal(config.logs?.otlp?.endpoint, "https://otel.example/v1/logs");
  assert.deepEqual(config.notes, [
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT carries a user and password, which OTLP does not send from a URL (give them in OTEL_EXPORTER_OTLP_HEADERS, as Authorization=Basic%20<base64 of user:password>); metrics are not sent over OTLP",
  ]);
});

test("on with no exporter named: a note says nothing is sent (as Claude Code, none is the default)", () => {
  const config = on({})!;
  assert.equal(config.metrics, undefined);
  assert.equal(config.logs, undefined);
  assert.match(config.notes.at(-1)!, /neither OTEL_METRICS_EXPORTER nor OTEL_LOGS_EXPORTER names an exporter/);
});

test("traces only with CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1 and OTEL_TRACES_EXPORTER: /v1/traces, every 5 s by default, their own protocol, endpoint and interval", () => {
  const on = { CLAUDE_CODE_ENABLE_TELEMETRY: "1", CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1", OTEL_TRACES_EXPORTER: "otlp" };
  assert.deepEqual(telemetryConfig(on)!.traces, { otlp: { protocol: "http/protobuf", endpoint: "http://localhost:4318/v1/traces", headers: {} }, console: false, intervalMs: 5_000 });
  assert.deepEqual(telemetryConfig(on)!.notes, []);
  const own = telemetryConfig({ ...on, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://tempo:4317", OTEL_EXPORTER_OTLP_TRACES_HEADERS: "x-k=v", OTEL_TRACES_EXPORT_INTERVAL: "250" })!;
  assert.deepEqual(own.traces, { otlp: { protocol: "grpc", endpoint: "http://tempo:4317/", headers: { "x-k": "v" } }, console: false, intervalMs: 250 });
  assert.deepEqual(own.secrets, ["v"]);
  const off = telemetryConfig({ CLAUDE_CODE_ENABLE_TELEMETRY: "1", OTEL_TRACES_EXPORTER: "otlp" })!;
  assert.equal(off.traces, undefined);
  assert.match(off.notes[0], /OTEL_TRACES_EXPORTER is set, but traces are a beta that CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1 turns on/);
  assert.match(telemetryConfig({ ...on, OTEL_TRACES_EXPORT_INTERVAL: "soon" })!.notes[0], /OTEL_TRACES_EXPORT_INTERVAL must be a whole number/);
  assert.match(telemetryConfig({ CLAUDE_CODE_ENABLE_TELEMETRY: "1", CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1" })!.notes.at(-1)!, /nor OTEL_TRACES_EXPORTER names an exporter/);
});
