// The trace encoders: known bytes of a one-span ExportTraceServiceRequest (field numbers and wire
// types as opentelemetry-proto's trace/v1 trace.proto gives them), and a round trip through the
// test side's decoder against the http/json encoding of the same spans.
import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeTracesRequest, spanRecordsOf } from "@harness/test-utils";
import { tracesJson } from "./otlp-json.ts";
import { tracesProtobuf } from "./otlp-protobuf.ts";
import { STATUS_ERROR, STATUS_OK, type Origin, type Span } from "./otlp-model.ts";

const bytes = (...parts: (number | string)[]) => Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...Buffer.from(p)] : [p])));
const le64 = (n: number) => [n, 0, 0, 0, 0, 0, 0, 0];
/** A length-delimited field: its tag, then its bytes' length (each message here is under 128 bytes). */
const field = (tag: number, ...content: (number | string)[]) => {
  const inner = bytes(...content);
  return [tag, inner.length, ...inner];
};

const traceId = "0102030405060708090a0b0c0d0e0f10";
const spanId = "1112131415161718";
const parentSpanId = "2122232425262728";

test("a one-span traces request encodes to the bytes trace.proto gives: ids as raw bytes, fixed64 times, kind INTERNAL, an ERROR status with its message", () => {
  const span: Span = { traceId, spanId, parentSpanId, name: "s", start: 1n, end: 2n, attributes: { a: 1 }, status: { code: STATUS_ERROR, message: "m" } };
  const encoded = bytes(
    ...field(0x0a, ...Buffer.from(traceId, "hex")), // trace_id (1, bytes)
    ...field(0x12, ...Buffer.from(spanId, "hex")), // span_id (2)
    ...field(0x22, ...Buffer.from(parentSpanId, "hex")), // parent_span_id (4)
    ...field(0x2a, "s"), // name (5)
    0x30, 1, // kind (6, varint): SPAN_KIND_INTERNAL
    0x39, ...le64(1), // start_time_unix_nano (7, fixed64)
    0x41, ...le64(2), // end_time_unix_nano (8, fixed64)
    ...field(0x4a, ...field(0x0a, "a"), ...field(0x12, 0x18, 1)), // attributes (9): KeyValue{"a", AnyValue{int_value 1}}
    ...field(0x7a, ...field(0x12, "m"), 0x18, 2), // status (15): Status{message (2), code (3) ERROR}
  );
  const scopeSpans = field(0x12, ...field(0x0a, ...field(0x0a, "h"), ...field(0x12, "1")), ...field(0x12, ...encoded)); // ScopeSpans{scope 1, spans 2}
  const request = bytes(...field(0x0a, ...field(0x0a), ...scopeSpans)); // ExportTraceServiceRequest{resource_spans 1: ResourceSpans{resource 1, scope_spans 2}}
  assert.deepEqual(tracesProtobuf({ resource: {}, scope: { name: "h", version: "1" } }, [span]), request);
});

test("a root span has no parent_span_id, and an OK status no message", () => {
  const span: Span = { traceId, spanId, name: "r", start: 1n, end: 1n, attributes: {}, status: { code: STATUS_OK } };
  const encoded = Buffer.from(tracesProtobuf({ resource: {}, scope: { name: "h", version: "1" } }, [span]));
  assert.ok(!encoded.includes(Buffer.from([0x22, 8])), "no field 4");
  assert.ok(encoded.includes(Buffer.from([0x7a, 2, 0x18, 1])), "status{code OK} alone");
  const json = JSON.parse(tracesJson({ resource: {}, scope: { name: "h", version: "1" } }, [span])).resourceSpans[0].scopeSpans[0].spans[0];
  assert.equal(json.parentSpanId, undefined);
  assert.deepEqual(json.status, { code: 1 });
});

test("spans read back from protobuf equal the same spans read from OTLP/JSON: hex ids, nanosecond times beyond 2^53, attributes of each kind", () => {
  const origin: Origin = { resource: { "service.name": "harness" }, scope: { name: "harness", version: "0.1.0" } };
  const t0 = 1_700_000_000_123_456_789n;
  const spans: Span[] = [
    { traceId, spanId, name: "harness.interaction", start: t0, end: t0 + 5_000_000n, attributes: { user_prompt: "héllo — 日本 🚀", user_prompt_length: 12 }, status: { code: STATUS_OK } },
    { traceId, spanId: parentSpanId, parentSpanId: spanId, name: "harness.llm_request", start: t0 + 1n, end: t0 + 2n, attributes: { cost_usd: { double: 0 }, success: false, share: 0.5 }, status: { code: STATUS_ERROR, message: "overloaded" } },
  ];
  const fromProtobuf = spanRecordsOf(decodeTracesRequest(tracesProtobuf(origin, spans)));
  assert.deepEqual(fromProtobuf, spanRecordsOf(JSON.parse(tracesJson(origin, spans))));
  assert.deepEqual(
    fromProtobuf.map((s) => [s.traceId, s.spanId, s.parentSpanId, s.name, s.kind, s.start, s.end, s.status.code, s.status.message]),
    [
      [traceId, spanId, "", "harness.interaction", 1, t0, t0 + 5_000_000n, 1, ""],
      [traceId, parentSpanId, spanId, "harness.llm_request", 1, t0 + 1n, t0 + 2n, 2, "overloaded"],
    ],
  );
  assert.deepEqual(fromProtobuf[0].attributes, { user_prompt: "héllo — 日本 🚀", user_prompt_length: 12 });
  assert.deepEqual(fromProtobuf[1].attributes, { cost_usd: 0, success: false, share: 0.5 });
  assert.deepEqual(fromProtobuf[0].resource, { "service.name": "harness" });
  assert.equal(fromProtobuf[0].scope, "harness");
});
