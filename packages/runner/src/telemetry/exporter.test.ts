// The exporter against a fake collector: retries of 429/503, one debug line per kind of failure,
// an answer it cannot read, the console exporter, and a flush that keeps to its bound.
import { test } from "node:test";
import assert from "node:assert/strict";
import { metricPointsOf, startFakeOtlpCollector, type FakeOtlpCollector } from "@harness/test-utils";
import { telemetryConfig } from "./config.ts";
import { createExporter } from "./exporter.ts";

const origin = { resource: { "service.name": "harness" }, scope: { name: "harness", version: "0" } };
const COUNT = { description: "", unit: "count" };

/** An exporter of both signals to a fake collector, over http/protobuf or, with `grpc`, grpc. */
async function setUp(t: { after(fn: () => unknown): void }, env: Record<string, string> = {}, options: { grpc?: boolean; now?: () => number } = {}) {
  const collector: FakeOtlpCollector = await startFakeOtlpCollector({ grpc: options.grpc === true });
  t.after(() => collector.close());
  const endpoint = options.grpc ? { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc", OTEL_EXPORTER_OTLP_ENDPOINT: collector.grpcUrl! } : { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
  const config = telemetryConfig({ CLAUDE_CODE_ENABLE_TELEMETRY: "1", OTEL_METRICS_EXPORTER: "otlp", OTEL_LOGS_EXPORTER: "otlp", ...endpoint, ...env })!;
  const debug: string[] = [];
  const consoleLines: string[] = [];
  const exporter = createExporter(config, origin, { debug: (line) => debug.push(line), console: (line) => consoleLines.push(line) }, options.now);
  t.after(() => exporter.stop());
  return { collector, exporter, debug, consoleLines };
}

test("a 503 and a 429 are tried again, and the export gets through", async (t) => {
  const { collector, exporter, debug } = await setUp(t);
  collector.push({ status: 503 }, { status: 429, headers: { "retry-after": "0" } });
  exporter.add("harness.session.count", COUNT, 1, {});
  await exporter.flush(5_000);
  const metrics = collector.requests.filter((r) => r.signal === "metrics");
  assert.equal(metrics.length, 3);
  assert.deepEqual(debug, []);
});

test("a refusal drops what it carried with one debug line per kind, and later exports still go", async (t) => {
  const { collector, exporter, debug } = await setUp(t);
  collector.push({ status: 400, body: "bad request" }, { status: 400, body: "bad request" });
  exporter.event("user_prompt", { prompt_length: 3 });
  await exporter.flush(2_000);
  exporter.event("user_prompt", { prompt_length: 4 });
  await exporter.flush(2_000);
  exporter.event("user_prompt", { prompt_length: 5 });
  await exporter.flush(2_000);
  assert.deepEqual(debug, ["logs not sent (the collector answered 400: bad request); dropped, and further failures of this kind are not logged"]);
  assert.deepEqual(collector.events().map((e) => e.attributes.prompt_length), [3, 4, 5]);
  assert.equal(collector.requests.length, 3, "a refusal is not tried again");
});

test("an answer that is not OTLP (garbage with 200) counts as delivered", async (t) => {
  const { collector, exporter, debug } = await setUp(t);
  collector.push({ status: 200, body: "\u0000\u00ffnot a protobuf{" });
  exporter.add("harness.session.count", COUNT, 1, {});
  await exporter.flush(2_000);
  assert.equal(collector.points().length, 1);
  assert.deepEqual(debug, []);
});

test("sums are cumulative across exports, a series per attributes, and an unchanged sum is not sent again", async (t) => {
  const { collector, exporter } = await setUp(t, { OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: "cumulative" });
  exporter.add("harness.token.usage", { description: "", unit: "tokens" }, 10, { type: "input" });
  await exporter.flush(2_000);
  exporter.add("harness.token.usage", { description: "", unit: "tokens" }, 5, { type: "input" });
  exporter.add("harness.token.usage", { description: "", unit: "tokens" }, 7, { type: "output" });
  await exporter.flush(2_000);
  await exporter.flush(2_000);
  const metrics = collector.requests.filter((r) => r.signal === "metrics");
  assert.equal(metrics.length, 2);
  const last = collector.points().slice(-2);
  assert.deepEqual(last.map((p) => [p.attributes.type, p.value]), [["input", 15], ["output", 7]]);
});

test("the console exporter writes each export as one OTLP/JSON line, and nothing goes over the network", async (t) => {
  const { collector, exporter, consoleLines } = await setUp(t, { OTEL_METRICS_EXPORTER: "console", OTEL_LOGS_EXPORTER: "none" });
  exporter.add("harness.session.count", COUNT, 1, {});
  exporter.event("user_prompt", { prompt_length: 3 });
  await exporter.flush(2_000);
  assert.equal(consoleLines.length, 1);
  assert.match(consoleLines[0], /^telemetry metrics: \{"resourceMetrics":/);
  assert.equal(collector.requests.length, 0);
});

test("a flush keeps to its bound when the collector holds every request open", async (t) => {
  const { collector, exporter, debug } = await setUp(t);
  collector.push({ hang: true }, { hang: true });
  exporter.add("harness.session.count", COUNT, 1, {});
  exporter.event("user_prompt", { prompt_length: 3 });
  const started = performance.now();
  await exporter.flush(300);
  const took = performance.now() - started;
  assert.ok(took < 1_000, `the flush took ${Math.round(took)} ms`);
  assert.equal(collector.requests.length, 2);
  assert.ok(debug.length > 0 && debug.every((line) => /not sent \(the collector did not answer in time\)/.test(line)), debug.join("\n"));
});

test("over grpc, UNAVAILABLE is tried again and another status drops the export, said once", async (t) => {
  const { collector, exporter, debug } = await setUp(t, {}, { grpc: true });
  collector.push({ grpcStatus: 14 });
  exporter.add("harness.session.count", COUNT, 1, {});
  await exporter.flush(5_000);
  assert.equal(collector.requests.length, 2);
  assert.deepEqual(debug, []);
  collector.push({ grpcStatus: 3 });
  exporter.event("user_prompt", { prompt_length: 3 });
  await exporter.flush(5_000);
  assert.deepEqual(debug, ["logs not sent (the collector answered grpc-status 3: refused by the fake collector); dropped, and further failures of this kind are not logged"]);
});

test("over grpc, a grpc-message that is not well percent-encoded is told as it came, and the process goes on", async (t) => {
  const { collector, exporter, debug } = await setUp(t, {}, { grpc: true });
  collector.push({ grpcStatus: 3, grpcMessage: "100% of the batch is invalid" }, { grpcStatus: 7, grpcMessage: "token%20expired" });
  exporter.event("user_prompt", { prompt_length: 3 });
  await exporter.flush(5_000);
  exporter.event("user_prompt", { prompt_length: 4 });
  await exporter.flush(5_000);
  assert.deepEqual(debug, [
    "logs not sent (the collector answered grpc-status 3: 100% of the batch is invalid); dropped, and further failures of this kind are not logged",
    "logs not sent (the collector answered grpc-status 7: token expired); dropped, and further failures of this kind are not logged",
  ]);
});

test("a 502 and a 504 are tried again too, each wait without a Retry-After twice the one before", async (t) => {
  const { collector, exporter, debug } = await setUp(t);
  collector.push({ status: 502 }, { status: 504 }, { status: 503 });
  exporter.add("harness.session.count", COUNT, 1, {});
  await exporter.flush(5_000);
  const metrics = collector.requests.filter((r) => r.signal === "metrics");
  assert.equal(metrics.length, 4);
  assert.deepEqual(debug, []);
  const waits = metrics.slice(1).map((r, i) => r.at - metrics[i].at);
  assert.ok(waits[1] >= 1.5 * waits[0] && waits[2] >= 1.5 * waits[1], `waits of ${waits.join(", ")} ms`);
});

test("a series unchanged for an hour is sent no more once delivered, and counts from 0 again, with a new start, if it comes back", async (t) => {
  let clock = 1_700_000_000_000;
  const { collector, exporter } = await setUp(t, { OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: "cumulative" }, { now: () => clock });
  const tokens = { description: "", unit: "tokens" };
  exporter.add("harness.token.usage", tokens, 10, { "session.id": "old" });
  await exporter.flush(2_000);
  clock += 61 * 60_000;
  exporter.add("harness.token.usage", tokens, 5, { "session.id": "new" });
  await exporter.flush(2_000);
  exporter.add("harness.token.usage", tokens, 1, { "session.id": "new" });
  await exporter.flush(2_000);
  const sessionsOf = (request: (typeof collector.requests)[number]) => metricPointsOf(request.metrics!).map((p) => [p.attributes["session.id"], p.value]);
  assert.deepEqual(collector.requests.map(sessionsOf), [[["old", 10]], [["old", 10], ["new", 5]], [["new", 6]]]);
  clock += 1_000;
  exporter.add("harness.token.usage", tokens, 2, { "session.id": "old" });
  await exporter.flush(2_000);
  const last = collector.requests.at(-1)!.metrics!.resourceMetrics[0].scopeMetrics[0].metrics[0].sum!.dataPoints;
  const old = last.find((p) => p.attributes?.some((a) => a.value.stringValue === "old"))!;
  assert.equal(Number(old.asInt), 2);
  assert.equal(old.startTimeUnixNano, String(BigInt(clock) * 1_000_000n));
});

test("over grpc, a proxy's 503 without a grpc-status is tried again as UNAVAILABLE, and its 404 drops the export", async (t) => {
  const { collector, exporter, debug } = await setUp(t, {}, { grpc: true });
  collector.push({ status: 503 });
  exporter.add("harness.session.count", COUNT, 1, {});
  await exporter.flush(5_000);
  assert.equal(collector.requests.length, 2);
  assert.deepEqual(debug, []);
  collector.push({ status: 404 });
  exporter.add("harness.session.count", COUNT, 1, {});
  await exporter.flush(5_000);
  assert.equal(collector.requests.length, 3);
  assert.deepEqual(debug, ["metrics not sent (the collector answered without a grpc-status (HTTP 404)); dropped, and further failures of this kind are not logged"]);
});

test("delta sums (the default) send what each series gained since the last export delivered, from when that export was", async (t) => {
  let clock = 1_700_000_000_000;
  const { collector, exporter } = await setUp(t, {}, { now: () => clock });
  const tokens = { description: "", unit: "tokens" };
  exporter.add("harness.token.usage", tokens, 10, { type: "input" });
  clock += 1_000;
  await exporter.flush(2_000);
  exporter.add("harness.token.usage", tokens, 7, { type: "output" });
  clock += 1_000;
  collector.push({ status: 400 });
  await exporter.flush(2_000);
  exporter.add("harness.token.usage", tokens, 5, { type: "input" });
  clock += 1_000;
  await exporter.flush(2_000);
  await exporter.flush(2_000);
  const nanos = (ms: number) => String(BigInt(ms) * 1_000_000n);
  const points = collector.requests.map((r) => r.metrics!.resourceMetrics[0].scopeMetrics[0].metrics[0].sum!);
  assert.ok(points.every((sum) => sum.aggregationTemporality === 1 && sum.isMonotonic));
  const t0 = 1_700_000_000_000;
  assert.deepEqual(
    points.map((sum) => sum.dataPoints.map((p) => [p.attributes![0].value.stringValue, Number(p.asInt), p.startTimeUnixNano, p.timeUnixNano])),
    [
      [["input", 10, nanos(t0), nanos(t0 + 1_000)]],
      [["output", 7, nanos(t0 + 1_000), nanos(t0 + 2_000)]],
      // The refused export's 7 comes again, with the 5 gained since; the input's delta starts where its last delivered one ended.
      [["input", 5, nanos(t0 + 1_000), nanos(t0 + 3_000)], ["output", 7, nanos(t0 + 1_000), nanos(t0 + 3_000)]],
    ],
  );
});

test("a delta export started while another is under way waits for it, so that no gain is sent twice", async (t) => {
  const { collector, exporter } = await setUp(t);
  collector.push({ delayMs: 300 });
  exporter.add("harness.session.count", COUNT, 10, {});
  const first = exporter.flush(2_000);
  await new Promise((r) => setTimeout(r, 50));
  exporter.add("harness.session.count", COUNT, 5, {});
  await Promise.all([first, exporter.flush(2_000)]);
  assert.deepEqual(collector.points().map((p) => p.value), [10, 5]);
});

test("a Retry-After given as a date is waited for, as one given in seconds", async (t) => {
  const { collector, exporter } = await setUp(t);
  collector.push({ status: 429, headers: { "retry-after": new Date(Date.now() + 2_000).toUTCString() } });
  exporter.add("harness.session.count", COUNT, 1, {});
  await exporter.flush(5_000);
  const [refused, accepted] = collector.requests;
  assert.ok(accepted, "tried again");
  assert.ok(accepted.at - refused.at >= 900, `tried again after ${accepted.at - refused.at} ms`);
});

test("spans go to /v1/traces on their own; a refusal drops them, said once, and a queue beyond its bound drops the newest", async (t) => {
  const { collector, exporter, debug } = await setUp(t, { CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1", OTEL_TRACES_EXPORTER: "otlp" });
  assert.equal(exporter.tracing, true);
  const span = (name: string) => ({ traceId: "ab".repeat(16), spanId: "cd".repeat(8), name, start: 1n, end: 2n, attributes: {}, status: { code: 1 as const } });
  collector.push({ status: 400, body: "no" });
  exporter.span(span("refused"));
  await exporter.flush(2_000);
  exporter.span(span("delivered"));
  await exporter.flush(2_000);
  assert.deepEqual(collector.spans().map((s) => s.name), ["refused", "delivered"], "each went once: a refusal is not tried again");
  assert.ok(collector.requests.every((r) => r.signal === "traces" && r.path === "/v1/traces"));
  assert.deepEqual(debug, ["traces not sent (the collector answered 400: no); dropped, and further failures of this kind are not logged"]);
  for (let i = 0; i < 5_001; i++) exporter.span(span(`s${i}`));
  assert.match(debug.at(-1)!, /more than 5000 spans wait to be sent; newer ones are dropped/);
  await exporter.flush(5_000);
  const sent = collector.spans().slice(2);
  assert.equal(sent.length, 5_000);
  assert.equal(sent.at(-1)!.name, "s4999");
  assert.equal(collector.requests.length, 2 + Math.ceil(5_000 / 512), "512 spans a request");
});

test("without a traces exporter spans are not kept", async (t) => {
  const { collector, exporter } = await setUp(t);
  assert.equal(exporter.tracing, false);
  exporter.span({ traceId: "ab".repeat(16), spanId: "cd".repeat(8), name: "x", start: 1n, end: 2n, attributes: {}, status: { code: 1 } });
  await exporter.flush(2_000);
  assert.equal(collector.spans().length, 0);
});
