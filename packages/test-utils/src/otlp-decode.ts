// Reading OTLP requests back, for tests: a protobuf body (http/protobuf, grpc) decoded by field
// number into the OTLP/JSON shape (lowerCamelCase names, 64-bit integers as strings), so that
// tests read what either encoding sent the same way; and both flattened into points and records.

type Field = { no: number; wire: number; value: bigint | Uint8Array };

/** The fields of one protobuf message, in order. Throws on bytes that are not one. */
export function protobufFields(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length) throw new Error("protobuf: a varint runs past the end");
      const byte = bytes[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const tag = Number(varint());
    const no = tag >> 3;
    const wire = tag & 7;
    if (wire === 0) fields.push({ no, wire, value: varint() });
    else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      if (at + size > bytes.length) throw new Error("protobuf: a fixed field runs past the end");
      fields.push({ no, wire, value: bytes.slice(at, at + size) });
      at += size;
    } else if (wire === 2) {
      const length = Number(varint());
      if (at + length > bytes.length) throw new Error("protobuf: a length-delimited field runs past the end");
      fields.push({ no, wire, value: bytes.slice(at, at + length) });
      at += length;
    } else throw new Error(`protobuf: wire type ${wire} is not one OTLP uses`);
  }
  return fields;
}

const all = (fields: Field[], no: number) => fields.filter((f) => f.no === no).map((f) => f.value);
const one = (fields: Field[], no: number) => all(fields, no).at(-1);
const text = (value: unknown) => (value instanceof Uint8Array ? new TextDecoder("utf-8", { fatal: true }).decode(value) : "");
const view = (value: Uint8Array) => new DataView(value.buffer, value.byteOffset, value.byteLength);
const u64 = (value: unknown) => (value instanceof Uint8Array ? String(view(value).getBigUint64(0, true)) : undefined);
const i64 = (value: unknown) => (value instanceof Uint8Array ? String(view(value).getBigInt64(0, true)) : undefined);
const f64 = (value: unknown) => (value instanceof Uint8Array ? view(value).getFloat64(0, true) : undefined);
const sub = (value: unknown) => protobufFields(value as Uint8Array);

function anyValue(fields: Field[]): Record<string, unknown> {
  const last = fields.at(-1);
  if (!last) return {};
  if (last.no === 1) return { stringValue: text(last.value) };
  if (last.no === 2) return { boolValue: last.value === 1n };
  if (last.no === 3) return { intValue: String(BigInt.asIntN(64, last.value as bigint)) };
  if (last.no === 4) return { doubleValue: f64(last.value) };
  return { unknownField: last.no };
}

const keyValues = (values: unknown[]) =>
  values.map((value) => {
    const kv = sub(value);
    return { key: text(one(kv, 1)), value: anyValue(sub(one(kv, 2) ?? new Uint8Array())) };
  });

const resourceOf = (value: unknown) => ({ attributes: keyValues(all(sub(value ?? new Uint8Array()), 1)) });
const scopeOf = (value: unknown) => {
  const f = sub(value ?? new Uint8Array());
  return { name: text(one(f, 1)), version: text(one(f, 2)) };
};

function dataPoint(value: unknown): Record<string, unknown> {
  const f = sub(value);
  const asDouble = one(f, 4);
  const asInt = one(f, 6);
  return {
    attributes: keyValues(all(f, 7)),
    startTimeUnixNano: u64(one(f, 2)),
    timeUnixNano: u64(one(f, 3)),
    ...(asDouble !== undefined && { asDouble: f64(asDouble) }),
    ...(asInt !== undefined && { asInt: i64(asInt) }),
  };
}

function metric(value: unknown): Record<string, unknown> {
  const f = sub(value);
  const base = { name: text(one(f, 1)), description: text(one(f, 2)), unit: text(one(f, 3)) };
  const sum = one(f, 7);
  if (sum !== undefined) {
    const s = sub(sum);
    return { ...base, sum: { dataPoints: all(s, 1).map(dataPoint), aggregationTemporality: Number(one(s, 2) ?? 0), isMonotonic: one(s, 3) === 1n } };
  }
  const gauge = one(f, 5);
  return { ...base, gauge: { dataPoints: gauge === undefined ? [] : all(sub(gauge), 1).map(dataPoint) } };
}

/** ExportMetricsServiceRequest bytes in the OTLP/JSON shape. */
export function decodeMetricsRequest(bytes: Uint8Array): OtlpMetricsJson {
  return {
    resourceMetrics: all(protobufFields(bytes), 1).map((rm) => {
      const f = sub(rm);
      return {
        resource: resourceOf(one(f, 1)),
        scopeMetrics: all(f, 2).map((sm) => {
          const s = sub(sm);
          return { scope: scopeOf(one(s, 1)), metrics: all(s, 2).map(metric) };
        }),
      };
    }),
  } as OtlpMetricsJson;
}

function logRecord(value: unknown): Record<string, unknown> {
  const f = sub(value);
  return {
    timeUnixNano: u64(one(f, 1)),
    severityNumber: Number(one(f, 2) ?? 0),
    severityText: text(one(f, 3)),
    body: anyValue(sub(one(f, 5) ?? new Uint8Array())),
    attributes: keyValues(all(f, 6)),
    observedTimeUnixNano: u64(one(f, 11)),
    eventName: text(one(f, 12)),
  };
}

/** ExportLogsServiceRequest bytes in the OTLP/JSON shape. */
export function decodeLogsRequest(bytes: Uint8Array): OtlpLogsJson {
  return {
    resourceLogs: all(protobufFields(bytes), 1).map((rl) => {
      const f = sub(rl);
      return {
        resource: resourceOf(one(f, 1)),
        scopeLogs: all(f, 2).map((sl) => {
          const s = sub(sl);
          return { scope: scopeOf(one(s, 1)), logRecords: all(s, 2).map(logRecord) };
        }),
      };
    }),
  } as OtlpLogsJson;
}

const hex = (value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString("hex") : "");

// trace/v1 Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7 and end 8
// (fixed64), attributes 9, status 15 (message 2, code 3).
function span(value: unknown): Record<string, unknown> {
  const f = sub(value);
  const status = sub(one(f, 15) ?? new Uint8Array());
  return {
    traceId: hex(one(f, 1)),
    spanId: hex(one(f, 2)),
    parentSpanId: hex(one(f, 4)),
    name: text(one(f, 5)),
    kind: Number(one(f, 6) ?? 0),
    startTimeUnixNano: u64(one(f, 7)),
    endTimeUnixNano: u64(one(f, 8)),
    attributes: keyValues(all(f, 9)),
    status: { code: Number(one(status, 3) ?? 0), message: text(one(status, 2)) },
  };
}

/** ExportTraceServiceRequest bytes in the OTLP/JSON shape (ids as hex, as OTLP/JSON has them). */
export function decodeTracesRequest(bytes: Uint8Array): OtlpTracesJson {
  return {
    resourceSpans: all(protobufFields(bytes), 1).map((rs) => {
      const f = sub(rs);
      return {
        resource: resourceOf(one(f, 1)),
        scopeSpans: all(f, 2).map((ss) => {
          const s = sub(ss);
          return { scope: scopeOf(one(s, 1)), spans: all(s, 2).map(span) };
        }),
      };
    }),
  } as OtlpTracesJson;
}

type JsonKeyValue = { key: string; value: { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number } };
type JsonPoint = { attributes?: JsonKeyValue[]; startTimeUnixNano?: string; timeUnixNano?: string; asDouble?: number; asInt?: string | number };
type JsonMetric = { name: string; description?: string; unit?: string; sum?: { dataPoints: JsonPoint[]; aggregationTemporality?: number; isMonotonic?: boolean }; gauge?: { dataPoints: JsonPoint[] } };
export type OtlpMetricsJson = { resourceMetrics: { resource?: { attributes?: JsonKeyValue[] }; scopeMetrics: { scope?: { name?: string; version?: string }; metrics: JsonMetric[] }[] }[] };
type JsonLogRecord = { timeUnixNano?: string; severityNumber?: number; body?: JsonKeyValue["value"]; attributes?: JsonKeyValue[]; eventName?: string };
export type OtlpLogsJson = { resourceLogs: { resource?: { attributes?: JsonKeyValue[] }; scopeLogs: { scope?: { name?: string; version?: string }; logRecords: JsonLogRecord[] }[] }[] };

type JsonSpan = { traceId: string; spanId: string; parentSpanId?: string; name: string; kind?: number; startTimeUnixNano: string; endTimeUnixNano: string; attributes?: JsonKeyValue[]; status?: { code?: number; message?: string } };
export type OtlpTracesJson = { resourceSpans: { resource?: { attributes?: JsonKeyValue[] }; scopeSpans: { scope?: { name?: string; version?: string }; spans: JsonSpan[] }[] }[] };

export type AttributeMap = Record<string, string | number | boolean>;

/** Attributes as a plain object: integers as numbers. */
export function attributeMap(values: JsonKeyValue[] | undefined): AttributeMap {
  const map: AttributeMap = {};
  for (const { key, value } of values ?? []) {
    if (value.stringValue !== undefined) map[key] = value.stringValue;
    else if (value.boolValue !== undefined) map[key] = value.boolValue;
    else if (value.intValue !== undefined) map[key] = Number(value.intValue);
    else if (value.doubleValue !== undefined) map[key] = value.doubleValue;
  }
  return map;
}

/** One data point of one metric, flattened. */
export type MetricPoint = { name: string; unit: string; kind: "sum" | "gauge"; monotonic: boolean; temporality: number; value: number; attributes: AttributeMap; resource: AttributeMap };

export function metricPointsOf(request: OtlpMetricsJson): MetricPoint[] {
  return request.resourceMetrics.flatMap((rm) =>
    rm.scopeMetrics.flatMap((sm) =>
      sm.metrics.flatMap((m) => {
        const kind = m.sum ? "sum" : "gauge";
        const points = (m.sum ?? m.gauge)?.dataPoints ?? [];
        return points.map((p) => ({
          name: m.name,
          unit: m.unit ?? "",
          kind,
          monotonic: m.sum?.isMonotonic === true,
          temporality: m.sum?.aggregationTemporality ?? 0,
          value: p.asDouble ?? Number(p.asInt ?? 0),
          attributes: attributeMap(p.attributes),
          resource: attributeMap(rm.resource?.attributes),
        })) as MetricPoint[];
      }),
    ),
  );
}

/** One log record (a Harness event), flattened. */
export type EventRecord = { eventName: string; body: string; attributes: AttributeMap; resource: AttributeMap };

export function eventRecordsOf(request: OtlpLogsJson): EventRecord[] {
  return request.resourceLogs.flatMap((rl) =>
    rl.scopeLogs.flatMap((sl) =>
      sl.logRecords.map((r) => ({ eventName: r.eventName ?? "", body: r.body?.stringValue ?? "", attributes: attributeMap(r.attributes), resource: attributeMap(rl.resource?.attributes) })),
    ),
  );
}

/** One span, flattened: times as nanoseconds, no parent as "". */
export type SpanRecord = { traceId: string; spanId: string; parentSpanId: string; name: string; kind: number; start: bigint; end: bigint; attributes: AttributeMap; status: { code: number; message: string }; resource: AttributeMap; scope: string };

export function spanRecordsOf(request: OtlpTracesJson): SpanRecord[] {
  return request.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? "",
        name: s.name,
        kind: s.kind ?? 0,
        start: BigInt(s.startTimeUnixNano),
        end: BigInt(s.endTimeUnixNano),
        attributes: attributeMap(s.attributes),
        status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
        resource: attributeMap(rs.resource?.attributes),
        scope: ss.scope?.name ?? "",
      })),
    ),
  );
}
