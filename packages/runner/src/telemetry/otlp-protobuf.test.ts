// The hand-written OTLP protobuf encoder: known bytes of small requests (field numbers and wire types
// as opentelemetry-proto gives them), and round trips through the test side's decoder (by field number)
// against the http/json encoding of the same data.
import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeLogsRequest, decodeMetricsRequest, eventRecordsOf, metricPointsOf } from "@harness/test-utils";
import { logsJson, metricsJson } from "./otlp-json.ts";
import { logsProtobuf, metricsProtobuf } from "./otlp-protobuf.ts";
import type { LogRecord, Metric, Origin } from "./otlp-model.ts";

const bytes = (...parts: (number | string)[]) => Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...Buffer.from(p)] : [p])));
const le64 = (n: number) => [n, 0, 0, 0, 0, 0, 0, 0];

test("a one-record logs request encodes to the bytes the OTLP schema gives", () => {
  const origin: Origin = { resource: {}, scope: { name: "h", version: "1" } };
  const record: LogRecord = { timeUnixNano: 1n, eventName: "e", body: "b", attributes: { a: 1 } };
  const logRecord = bytes(
    0x09, ...le64(1), // time_unix_nano (1, fixed64)
    0x10, 9, // severity_number INFO (2, varint)
    0x1a, 4, "INFO", // severity_text (3)
    0x2a, 3, 0x0a, 1, "b", // body: AnyValue{string_value "b"} (5)
    0x32, 7, 0x0a, 1, "a", 0x12, 2, 0x18, 1, // attributes: KeyValue{"a", AnyValue{int_value 1}} (6)
    0x59, ...le64(1), // observed_time_unix_nano (11, fixed64)
    0x62, 1, "e", // event_name (12)
  );
  assert.equal(logRecord.length, 43);
  const scopeLogs = bytes(0x0a, 6, 0x0a, 1, "h", 0x12, 1, "1", 0x12, 43, ...logRecord);
  const resourceLogs = bytes(0x0a, 0, 0x12, scopeLogs.length, ...scopeLogs);
  const request = bytes(0x0a, resourceLogs.length, ...resourceLogs);
  assert.deepEqual(logsProtobuf(origin, [record]), request);
});

test("a metrics request encodes to the bytes the OTLP schema gives: sfixed64 as_int, double as_double, a cumulative monotonic sum, a gauge", () => {
  const f64 = (n: number) => [...new Uint8Array(new Float64Array([n]).buffer)];
  // A length-delimited field: its tag, then its bytes' length (each message here is under 128 bytes).
  const field = (tag: number, ...content: (number | string)[]) => {
    const inner = bytes(...content);
    return [tag, inner.length, ...inner];
  };
  const metrics: Metric[] = [
    { name: "m", description: "", unit: "1", kind: "sum", temporality: 2, points: [{ attributes: { a: "b" }, startTimeUnixNano: 1n, timeUnixNano: 2n, value: 3, isDouble: false }] },
    { name: "g", description: "d", unit: "", kind: "gauge", temporality: 2, points: [{ attributes: { n: -1 }, startTimeUnixNano: 1n, timeUnixNano: 2n, value: 0.5, isDouble: true }] },
  ];
  const sumPoint = field(0x0a, 0x11, ...le64(1), 0x19, ...le64(2), 0x31, ...le64(3), ...field(0x3a, ...field(0x0a, "a"), ...field(0x12, ...field(0x0a, "b"))));
  const sum = [...sumPoint, 0x10, 2, 0x18, 1]; // data_points 1, aggregation_temporality CUMULATIVE (2), is_monotonic (3)
  const minusOne = [0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]; // int_value -1: ten-byte varint
  const gaugePoint = field(0x0a, 0x11, ...le64(1), 0x19, ...le64(2), 0x21, ...f64(0.5), ...field(0x3a, ...field(0x0a, "n"), ...field(0x12, ...minusOne)));
  const metric1 = field(0x12, ...field(0x0a, "m"), ...field(0x12), ...field(0x1a, "1"), ...field(0x3a, ...sum)); // Metric: sum is field 7
  const metric2 = field(0x12, ...field(0x0a, "g"), ...field(0x12, "d"), ...field(0x1a), ...field(0x2a, ...gaugePoint)); // gauge is field 5
  const scopeMetrics = field(0x12, ...field(0x0a, ...field(0x0a, "h"), ...field(0x12, "1")), ...metric1, ...metric2);
  const request = bytes(...field(0x0a, ...field(0x0a), ...scopeMetrics));
  assert.deepEqual(metricsProtobuf({ resource: {}, scope: { name: "h", version: "1" } }, metrics), request);
});

const origin: Origin = { resource: { "service.name": "harness", "service.version": "0.1.0", "team.id": "a b,c" }, scope: { name: "harness", version: "0.1.0" } };

test("metrics read back from protobuf equal the same metrics read from OTLP/JSON: sums monotonic, cumulative or delta, doubles and integers apart", () => {
  const t0 = 1_700_000_000_000_000_000n;
  const metrics: Metric[] = [
    {
      name: "harness.token.usage",
      description: "Tokens",
      unit: "tokens",
      kind: "sum",
      temporality: 2,
      points: [
        { attributes: { type: "input", model: "claude-x" }, startTimeUnixNano: t0, timeUnixNano: t0 + 5n, value: 1234, isDouble: false },
        { attributes: { type: "output", model: "claude-x" }, startTimeUnixNano: t0, timeUnixNano: t0 + 5n, value: 2 ** 40, isDouble: false },
      ],
    },
    { name: "harness.cost.usage", description: "Cost", unit: "USD", kind: "sum", temporality: 1, points: [{ attributes: { model: "claude-x", big: -3 }, startTimeUnixNano: t0, timeUnixNano: t0 + 5n, value: 0.0125, isDouble: true }] },
    { name: "some.gauge", description: "", unit: "1", kind: "gauge", temporality: 2, points: [{ attributes: { on: true, share: 0.5 }, startTimeUnixNano: t0, timeUnixNano: t0, value: 7, isDouble: false }] },
  ];
  const fromProtobuf = decodeMetricsRequest(metricsProtobuf(origin, metrics));
  const fromJson = JSON.parse(metricsJson(origin, metrics));
  assert.deepEqual(metricPointsOf(fromProtobuf), metricPointsOf(fromJson));
  const points = metricPointsOf(fromProtobuf);
  assert.deepEqual(
    points.map((p) => [p.name, p.kind, p.monotonic, p.temporality, p.value, p.attributes]),
    [
      ["harness.token.usage", "sum", true, 2, 1234, { type: "input", model: "claude-x" }],
      ["harness.token.usage", "sum", true, 2, 2 ** 40, { type: "output", model: "claude-x" }],
      ["harness.cost.usage", "sum", true, 1, 0.0125, { model: "claude-x", big: -3 }],
      ["some.gauge", "gauge", false, 0, 7, { on: true, share: 0.5 }],
    ],
  );
  assert.deepEqual(points[0].resource, origin.resource);
  const sum = fromProtobuf.resourceMetrics[0].scopeMetrics[0].metrics[0].sum!;
  assert.equal(sum.dataPoints[0].startTimeUnixNano, String(t0));
  assert.equal(sum.dataPoints[0].timeUnixNano, String(t0 + 5n));
  assert.deepEqual(fromProtobuf.resourceMetrics[0].scopeMetrics[0].scope, { name: "harness", version: "0.1.0" });
});

test("log records read back from protobuf equal the same records read from OTLP/JSON, text in any script kept whole", () => {
  const records: LogRecord[] = [
    { timeUnixNano: 1_700_000_000_123_000_000n, eventName: "harness.user_prompt", body: "harness.user_prompt", attributes: { "event.name": "user_prompt", prompt_length: 12, prompt: "héllo — 日本 🚀" } },
    { timeUnixNano: 1_700_000_000_124_000_000n, eventName: "harness.api_request", body: "harness.api_request", attributes: { cost_usd: { double: 0 }, success: false } },
  ];
  const fromProtobuf = eventRecordsOf(decodeLogsRequest(logsProtobuf(origin, records)));
  assert.deepEqual(fromProtobuf, eventRecordsOf(JSON.parse(logsJson(origin, records))));
  assert.deepEqual(fromProtobuf[0].attributes, { "event.name": "user_prompt", prompt_length: 12, prompt: "héllo — 日本 🚀" });
  assert.deepEqual(fromProtobuf[1].attributes, { cost_usd: 0, success: false });
  assert.equal(fromProtobuf[1].eventName, "harness.api_request");
});

test("an integer attribute beyond what a double holds exactly goes as a double in both encodings, never as a wrong int64", () => {
  const records: LogRecord[] = [{ timeUnixNano: 1n, eventName: "e", body: "b", attributes: { huge: 2 ** 70, big: 2 ** 53 - 1 } }];
  const fromJson = JSON.parse(logsJson(origin, records)).resourceLogs[0].scopeLogs[0].logRecords[0].attributes;
  assert.deepEqual(fromJson, [
    { key: "huge", value: { doubleValue: 2 ** 70 } },
    { key: "big", value: { intValue: String(2 ** 53 - 1) } },
  ]);
  assert.deepEqual(eventRecordsOf(decodeLogsRequest(logsProtobuf(origin, records)))[0].attributes, { huge: 2 ** 70, big: 2 ** 53 - 1 });
});

test("integers beyond a 31-bit varint encode as 64-bit varints: a negative one as its two's complement in ten bytes", () => {
  const record: LogRecord = { timeUnixNano: 1n, eventName: "e", body: "b", attributes: { n: -1, m: 2 ** 35, s: 300 } };
  const encoded = Buffer.from(logsProtobuf(origin, [record]));
  // KeyValue{key, AnyValue{int_value (3, varint)}}
  const negative = bytes(0x0a, 1, "n", 0x12, 11, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01);
  const large = bytes(0x0a, 1, "m", 0x12, 7, 0x18, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01);
  const small = bytes(0x0a, 1, "s", 0x12, 3, 0x18, 0xac, 0x02);
  for (const [name, part] of [["-1", negative], ["2^35", large], ["300", small]] as const) assert.ok(encoded.includes(Buffer.from(part)), `${name} is encoded as a varint of int64`);
  assert.deepEqual(eventRecordsOf(decodeLogsRequest(logsProtobuf(origin, [record])))[0].attributes, { n: -1, m: 2 ** 35, s: 300 });
});
