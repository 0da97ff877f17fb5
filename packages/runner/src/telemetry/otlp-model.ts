// The OpenTelemetry data this exporter sends, shaped as OTLP's messages (opentelemetry-proto
// common/v1, metrics/v1, logs/v1, trace/v1) but only as far as Harness uses them: string, boolean,
// integer and double attributes; monotonic sums (delta or cumulative) and gauges of numbers; log
// records with a string body; spans without events or links. Both encodings (otlp-json.ts, otlp-protobuf.ts) take these.

/** An attribute's value: a number is sent as an integer when it is one a double holds exactly
 * (a larger one would lose digits, or overflow int64), else as a double; a `{ double }` is always
 * a double (a cost that happens to be 0 stays a double). */
export type AttributeValue = string | boolean | number | { double: number };
export type Attributes = Readonly<Record<string, AttributeValue>>;

/** Nanoseconds since the epoch (OTLP's fixed64 times). */
export type UnixNanos = bigint;

export type NumberPoint = { attributes: Attributes; startTimeUnixNano: UnixNanos; timeUnixNano: UnixNanos; value: number; isDouble: boolean };

/** Sums are monotonic, their points each a delta since the last export or a cumulative total
 * (`temporality`, OTLP's AggregationTemporality). */
export type Metric = { name: string; description: string; unit: string; kind: "sum" | "gauge"; temporality: Temporality; points: NumberPoint[] };

/** INFO, OTLP's SeverityNumber 9: every Harness event is one. */
export const SEVERITY_INFO = 9;

export type LogRecord = { timeUnixNano: UnixNanos; eventName: string; body: string; attributes: Attributes };

/** OTLP's Status.StatusCode: UNSET 0, OK 1, ERROR 2. */
export const STATUS_OK = 1;
export const STATUS_ERROR = 2;
/** OTLP's SpanKind INTERNAL (1): every Harness span is one. */
export const SPAN_KIND_INTERNAL = 1;

/** One finished span: ids as lower-case hex (16 bytes of trace, 8 of span), no parent for a root. */
export type Span = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  start: UnixNanos;
  end: UnixNanos;
  attributes: Attributes;
  status: { code: typeof STATUS_OK | typeof STATUS_ERROR; message?: string };
};

/** Who sends: the resource's attributes and the instrumentation scope. */
export type Origin = { resource: Attributes; scope: { name: string; version: string } };

/** OTLP's AggregationTemporality: DELTA 1, CUMULATIVE 2. */
export const DELTA = 1;
export const CUMULATIVE = 2;
export type Temporality = typeof DELTA | typeof CUMULATIVE;

export function nanosOf(ms: number): UnixNanos {
  return BigInt(Math.round(ms * 1000)) * 1000n;
}
