// OTLP/JSON (the http/json protocol): the protobuf messages in the JSON mapping OTLP specifies,
// with lowerCamelCase field names, 64-bit integers as decimal strings, enums as numbers and trace
// and span ids as hex.
import { SEVERITY_INFO, SPAN_KIND_INTERNAL, type Span, type AttributeValue, type Attributes, type LogRecord, type Metric, type Origin } from "./otlp-model.ts";

function anyValue(value: AttributeValue): Record<string, unknown> {
  if (typeof value === "string") return { stringValue: value };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  return { doubleValue: value.double };
}

function keyValues(attributes: Attributes): Record<string, unknown>[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

const resourceOf = (origin: Origin) => ({ attributes: keyValues(origin.resource) });

export function metricsJson(origin: Origin, metrics: readonly Metric[]): string {
  const encoded = metrics.map((metric) => {
    const dataPoints = metric.points.map((point) => ({
      attributes: keyValues(point.attributes),
      startTimeUnixNano: String(point.startTimeUnixNano),
      timeUnixNano: String(point.timeUnixNano),
      ...(point.isDouble ? { asDouble: point.value } : { asInt: String(Math.round(point.value)) }),
    }));
    const data = metric.kind === "sum" ? { sum: { dataPoints, aggregationTemporality: metric.temporality, isMonotonic: true } } : { gauge: { dataPoints } };
    return { name: metric.name, description: metric.description, unit: metric.unit, ...data };
  });
  return JSON.stringify({ resourceMetrics: [{ resource: resourceOf(origin), scopeMetrics: [{ scope: origin.scope, metrics: encoded }] }] });
}

export function logsJson(origin: Origin, records: readonly LogRecord[]): string {
  const logRecords = records.map((record) => ({
    timeUnixNano: String(record.timeUnixNano),
    observedTimeUnixNano: String(record.timeUnixNano),
    severityNumber: SEVERITY_INFO,
    severityText: "INFO",
    body: { stringValue: record.body },
    attributes: keyValues(record.attributes),
    eventName: record.eventName,
  }));
  return JSON.stringify({ resourceLogs: [{ resource: resourceOf(origin), scopeLogs: [{ scope: origin.scope, logRecords }] }] });
}

export function tracesJson(origin: Origin, spans: readonly Span[]): string {
  const encoded = spans.map((s) => ({
    traceId: s.traceId,
    spanId: s.spanId,
    ...(s.parentSpanId && { parentSpanId: s.parentSpanId }),
    name: s.name,
    kind: SPAN_KIND_INTERNAL,
    startTimeUnixNano: String(s.start),
    endTimeUnixNano: String(s.end),
    attributes: keyValues(s.attributes),
    status: { code: s.status.code, ...(s.status.message && { message: s.status.message }) },
  }));
  return JSON.stringify({ resourceSpans: [{ resource: resourceOf(origin), scopeSpans: [{ scope: origin.scope, spans: encoded }] }] });
}
