// OTLP's protobuf messages (the http/protobuf and grpc protocols), encoded by hand for the few
// messages sent: ExportMetricsServiceRequest (sums and gauges of numbers) and
// ExportLogsServiceRequest and ExportTraceServiceRequest. Field numbers are opentelemetry-proto's
// (collector/*/v1, common/v1, resource/v1, metrics/v1, logs/v1, trace/v1). Each message is encoded bottom-up into its own bytes, then
// framed by its parent: the messages are small, so the copies cost nothing worth a cleverer writer.
import { SEVERITY_INFO, SPAN_KIND_INTERNAL, type Span, type AttributeValue, type Attributes, type LogRecord, type Metric, type NumberPoint, type Origin } from "./otlp-model.ts";

const VARINT = 0;
const FIXED64 = 1;
const LENGTH = 2;
const TEXT = new TextEncoder();

/** The bytes of one message, field after field. */
class Message {
  private readonly parts: Uint8Array[] = [];

  private tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  /** A varint of `value` as an unsigned 64-bit integer (a negative one as its two's complement):
   * plain numbers for the usual small values, BigInt for the rest. */
  private varint(value: number | bigint): void {
    const bytes: number[] = [];
    if (typeof value === "number" && value >= 0 && value <= 0x7fffffff) {
      while (value >= 0x80) {
        bytes.push((value & 0x7f) | 0x80);
        value >>>= 7;
      }
      bytes.push(value);
      this.parts.push(Uint8Array.from(bytes));
      return;
    }
    let rest = BigInt.asUintN(64, BigInt(value));
    while (rest >= 0x80n) {
      bytes.push(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    bytes.push(Number(rest));
    this.parts.push(Uint8Array.from(bytes));
  }

  uint(field: number, value: number | bigint): this {
    this.tag(field, VARINT);
    this.varint(value);
    return this;
  }

  bool(field: number, value: boolean): this {
    return this.uint(field, value ? 1 : 0);
  }

  fixed64(field: number, value: bigint): this {
    this.tag(field, FIXED64);
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
    this.parts.push(bytes);
    return this;
  }

  double(field: number, value: number): this {
    this.tag(field, FIXED64);
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, true);
    this.parts.push(bytes);
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, LENGTH);
    this.varint(value.length);
    this.parts.push(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, TEXT.encode(value));
  }

  message(field: number, value: Message): this {
    return this.bytes(field, value.finish());
  }

  finish(): Uint8Array<ArrayBuffer> {
    const length = this.parts.reduce((sum, part) => sum + part.length, 0);
    const out = new Uint8Array(length);
    let at = 0;
    for (const part of this.parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }
}

// common/v1 AnyValue: string_value 1, bool_value 2, int_value 3, double_value 4.
function anyValue(value: AttributeValue): Message {
  if (typeof value === "string") return new Message().string(1, value);
  if (typeof value === "boolean") return new Message().bool(2, value);
  if (typeof value === "number" && Number.isSafeInteger(value)) return new Message().uint(3, value);
  return new Message().double(4, typeof value === "number" ? value : value.double);
}

/** KeyValue (key 1, value 2) repeated at `field` of `into`. */
function attributes(into: Message, field: number, attrs: Attributes): Message {
  for (const [key, value] of Object.entries(attrs)) into.message(field, new Message().string(1, key).message(2, anyValue(value)));
  return into;
}

// resource/v1 Resource: attributes 1. common/v1 InstrumentationScope: name 1, version 2.
const resource = (origin: Origin) => attributes(new Message(), 1, origin.resource);
const scope = (origin: Origin) => new Message().string(1, origin.scope.name).string(2, origin.scope.version);

// metrics/v1 NumberDataPoint: start_time_unix_nano 2, time_unix_nano 3, as_double 4, as_int 6 (sfixed64), attributes 7.
function point(p: NumberPoint): Message {
  const m = new Message().fixed64(2, p.startTimeUnixNano).fixed64(3, p.timeUnixNano);
  if (p.isDouble) m.double(4, p.value);
  else m.fixed64(6, BigInt(Math.round(p.value)));
  return attributes(m, 7, p.attributes);
}

// Metric: name 1, description 2, unit 3, gauge 5, sum 7. Sum: data_points 1,
// aggregation_temporality 2, is_monotonic 3. Gauge: data_points 1.
function metric(metric: Metric): Message {
  const data = new Message();
  for (const p of metric.points) data.message(1, point(p));
  if (metric.kind === "sum") data.uint(2, metric.temporality).bool(3, true);
  return new Message().string(1, metric.name).string(2, metric.description).string(3, metric.unit).message(metric.kind === "sum" ? 7 : 5, data);
}

/** ExportMetricsServiceRequest: resource_metrics 1 → ResourceMetrics (resource 1, scope_metrics 2
 * → ScopeMetrics (scope 1, metrics 2)). */
export function metricsProtobuf(origin: Origin, metrics: readonly Metric[]): Uint8Array<ArrayBuffer> {
  const scoped = new Message().message(1, scope(origin));
  for (const m of metrics) scoped.message(2, metric(m));
  const resourceMetrics = new Message().message(1, resource(origin)).message(2, scoped);
  return new Message().message(1, resourceMetrics).finish();
}

// logs/v1 LogRecord: time_unix_nano 1, severity_number 2, severity_text 3, body 5, attributes 6,
// observed_time_unix_nano 11, event_name 12.
function logRecord(record: LogRecord): Message {
  const m = new Message().fixed64(1, record.timeUnixNano).uint(2, SEVERITY_INFO).string(3, "INFO").message(5, anyValue(record.body));
  return attributes(m, 6, record.attributes).fixed64(11, record.timeUnixNano).string(12, record.eventName);
}

/** ExportLogsServiceRequest: resource_logs 1 → ResourceLogs (resource 1, scope_logs 2 →
 * ScopeLogs (scope 1, log_records 2)). */
export function logsProtobuf(origin: Origin, records: readonly LogRecord[]): Uint8Array<ArrayBuffer> {
  const scoped = new Message().message(1, scope(origin));
  for (const r of records) scoped.message(2, logRecord(r));
  const resourceLogs = new Message().message(1, resource(origin)).message(2, scoped);
  return new Message().message(1, resourceLogs).finish();
}

// trace/v1 Span: trace_id 1, span_id 2, parent_span_id 4 (bytes), name 5, kind 6, start_time_unix_nano 7,
// end_time_unix_nano 8 (fixed64), attributes 9, status 15 (Status: message 2, code 3).
function span(s: Span): Message {
  const m = new Message().bytes(1, Buffer.from(s.traceId, "hex")).bytes(2, Buffer.from(s.spanId, "hex"));
  if (s.parentSpanId) m.bytes(4, Buffer.from(s.parentSpanId, "hex"));
  m.string(5, s.name).uint(6, SPAN_KIND_INTERNAL).fixed64(7, s.start).fixed64(8, s.end);
  const status = new Message();
  if (s.status.message) status.string(2, s.status.message);
  return attributes(m, 9, s.attributes).message(15, status.uint(3, s.status.code));
}

/** ExportTraceServiceRequest: resource_spans 1 → ResourceSpans (resource 1, scope_spans 2 →
 * ScopeSpans (scope 1, spans 2)). */
export function tracesProtobuf(origin: Origin, spans: readonly Span[]): Uint8Array<ArrayBuffer> {
  const scoped = new Message().message(1, scope(origin));
  for (const s of spans) scoped.message(2, span(s));
  const resourceSpans = new Message().message(1, resource(origin)).message(2, scoped);
  return new Message().message(1, resourceSpans).finish();
}
