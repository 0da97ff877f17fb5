// What telemetry keeps between exports, and the exports themselves: counters as sums, one series
// per name and attributes, each export sending what a series gained since the last one delivered
// (delta) or its total since its first record (cumulative); events queued as log records. A
// series left unchanged for an hour (a session over, in a runner that serves many) is dropped
// once an export has delivered its last value: neither memory nor each export grows with every
// session a long-lived process has seen; should it come back, its new start time tells the
// collector it counts from 0 again. Each signal is sent on its own interval (timers that never
// hold the process open) and on flush(), which is bounded: a collector that is down, slow or
// refusing costs a run nothing and holds an exit at most the bound. A failure drops the events it
// carried (spans too; sums go again with the next export) and is told once per kind to `debug`.
import { send } from "./send.ts";
import type { SignalName, TelemetryConfig } from "./config.ts";
import { logsJson, metricsJson, tracesJson } from "./otlp-json.ts";
import { logsProtobuf, metricsProtobuf, tracesProtobuf } from "./otlp-protobuf.ts";
import { CUMULATIVE, DELTA, nanosOf, type Attributes, type LogRecord, type Metric, type Origin, type Span, type UnixNanos } from "./otlp-model.ts";

export type InstrumentInfo = { description: string; unit: string; isDouble?: boolean };

/** Where lines go: `debug` the debug log (failures, notes), `console` the console exporter's. */
export type Sinks = { debug: (line: string) => void; console: (line: string) => void };

/** Queued events (and, apart, spans) beyond this are dropped (a collector that is down must not grow memory). */
const MAX_QUEUED_EVENTS = 5_000;
/** Events or spans per request. */
const BATCH = 512;
/** How long a delivered series may stay unchanged before it is dropped. */
const IDLE_SERIES_MS = 60 * 60_000;

/** One series: its total since `start`, and how much of it an export has delivered, until when. */
type Series = { name: string; attributes: Attributes; start: UnixNanos; value: number; changedAt: number; sent: number; sentUntil: UnixNanos };

export type Exporter = {
  add(name: string, info: InstrumentInfo, value: number, attributes: Attributes): void;
  event(eventName: string, attributes: Attributes): void;
  /** Queues a finished span (nothing without a traces exporter). */
  span(span: Span): void;
  /** Whether spans are wanted: a run builds none when they are not. */
  readonly tracing: boolean;
  /** Sends what is pending, within `boundMs`. */
  flush(boundMs: number): Promise<void>;
  /** Stops the timers (after a last flush by the caller). */
  stop(): void;
};

export function createExporter(config: TelemetryConfig, origin: Origin, sinks: Sinks, now: () => number = Date.now): Exporter {
  const instruments = new Map<string, InstrumentInfo>();
  const series = new Map<string, Series>();
  let changed = false;
  /** The metrics export under way: the next waits for it, so that a delta is never sent twice. */
  let metricsExport: Promise<void> = Promise.resolve();
  let queue: LogRecord[] = [];
  let spans: Span[] = [];
  let sequence = 0;
  const droppedSaid = new Set<string>();
  const told = new Set<string>();
  const inFlight = new Set<Promise<void>>();

  const tell = (signal: SignalName, kind: string, detail: string) => {
    if (told.has(`${signal} ${kind}`)) return;
    told.add(`${signal} ${kind}`);
    sinks.debug(`${signal} not sent (${detail}); dropped, and further failures of this kind are not logged`);
  };

  /** The sums as of now (delta: what each series gained since its last delivery), and what
   * marks them delivered once they are. */
  function metricsNow(): { metrics: Metric[]; sent: () => void } {
    const time = nanosOf(now());
    const delta = config.temporality === "delta";
    const byName = new Map<string, Metric>();
    const taken: [Series, number][] = [];
    for (const s of series.values()) {
      const value = delta ? s.value - s.sent : s.value;
      if (!(value > 0)) continue;
      taken.push([s, s.value]);
      const info = instruments.get(s.name)!;
      let metric = byName.get(s.name);
      if (!metric) byName.set(s.name, (metric = { name: s.name, description: info.description, unit: info.unit, kind: "sum", temporality: delta ? DELTA : CUMULATIVE, points: [] }));
      metric.points.push({ attributes: s.attributes, startTimeUnixNano: delta ? s.sentUntil : s.start, timeUnixNano: time, value, isDouble: info.isDouble === true });
    }
    const sent = () => {
      for (const [s, value] of taken) Object.assign(s, { sent: value, sentUntil: time });
    };
    return { metrics: [...byName.values()], sent };
  }

  async function export_(signal: SignalName, abort: AbortSignal): Promise<void> {
    const settings = config[signal];
    if (!settings) return;
    let bodies: { json: () => string; protobuf: () => Uint8Array<ArrayBuffer> }[];
    const exportedAt = now();
    let sent = () => {};
    if (signal === "metrics") {
      if (!changed) return;
      changed = false;
      const taken = metricsNow();
      const metrics = taken.metrics;
      sent = taken.sent;
      bodies = [{ json: () => metricsJson(origin, metrics), protobuf: () => metricsProtobuf(origin, metrics) }];
    } else if (signal === "traces") {
      if (spans.length === 0) return;
      const taken = spans;
      spans = [];
      bodies = batches(taken).map((batch) => ({ json: () => tracesJson(origin, batch), protobuf: () => tracesProtobuf(origin, batch) }));
    } else {
      if (queue.length === 0) return;
      const records = queue;
      queue = [];
      bodies = [];
      for (let i = 0; i < records.length; i += BATCH) {
        const batch = records.slice(i, i + BATCH);
        bodies.push({ json: () => logsJson(origin, batch), protobuf: () => logsProtobuf(origin, batch) });
      }
    }
    let delivered = true;
    for (const body of bodies) {
      if (settings.console) sinks.console(`telemetry ${signal}: ${body.json()}`);
      const otlp = settings.otlp;
      if (!otlp) continue;
      const result = await send({ signal, protocol: otlp.protocol, endpoint: otlp.endpoint, headers: otlp.headers, body: otlp.protocol === "http/json" ? body.json() : body.protobuf() }, abort);
      if (result.ok) continue;
      // The next export carries what this one did not deliver (a delta keeps growing from the last delivered).
      if (signal === "metrics") changed = true;
      delivered = false;
      tell(signal, result.kind, result.detail);
    }
    if (signal !== "metrics" || !delivered) return;
    sent();
    dropIdle(exportedAt);
  }

  const batches = <T>(items: T[]): T[][] => Array.from({ length: Math.ceil(items.length / BATCH) }, (_, i) => items.slice(i * BATCH, (i + 1) * BATCH));

  /** Whether the queue of `what` is full: the first refusal is told once. */
  const full = (length: number, what: string) => {
    if (length < MAX_QUEUED_EVENTS) return false;
    if (!droppedSaid.has(what)) sinks.debug(`more than ${MAX_QUEUED_EVENTS} ${what} wait to be sent; newer ones are dropped until they are`);
    droppedSaid.add(what);
    return true;
  };

  /** Drops the series that an export from `exportedAt` delivered and that had been idle long
   * before it (one changed since is kept). */
  function dropIdle(exportedAt: number): void {
    for (const [key, s] of series) if (exportedAt - s.changedAt > IDLE_SERIES_MS) series.delete(key);
  }

  /** Starts an export, tracked so that flush() waits for the ones under way too. */
  function start(signal: SignalName, abort: AbortSignal): Promise<void> {
    const exported = signal === "metrics" ? metricsExport.then(() => export_(signal, abort)) : export_(signal, abort);
    const running = exported.catch((error: unknown) => tell(signal, "error", (error as Error).message));
    if (signal === "metrics") metricsExport = running;
    inFlight.add(running);
    void running.finally(() => inFlight.delete(running));
    return running;
  }

  // A timer's export has the bound of its interval: it never overlaps the next.
  const timers = (["metrics", "logs", "traces"] as const).flatMap((signal) => {
    const settings = config[signal];
    if (!settings) return [];
    const timer = setInterval(() => void start(signal, AbortSignal.timeout(settings.intervalMs)), settings.intervalMs);
    timer.unref();
    return [timer];
  });

  return {
    add(name, info, value, attributes) {
      if (!config.metrics || !(value > 0)) return;
      instruments.set(name, info);
      const key = `${name}\u0000${JSON.stringify(attributes)}`;
      let s = series.get(key);
      if (!s) series.set(key, (s = { name, attributes, start: nanosOf(now()), value: 0, changedAt: 0, sent: 0, sentUntil: nanosOf(now()) }));
      s.value += value;
      s.changedAt = now();
      changed = true;
    },
    event(eventName, attributes) {
      if (!config.logs || full(queue.length, "events")) return;
      const time = now();
      queue.push({
        timeUnixNano: nanosOf(time),
        eventName: `harness.${eventName}`,
        body: `harness.${eventName}`,
        attributes: { "event.name": eventName, "event.timestamp": new Date(time).toISOString(), "event.sequence": sequence++, ...attributes },
      });
    },
    span(span) {
      if (config.traces && !full(spans.length, "spans")) spans.push(span);
    },
    tracing: config.traces !== undefined,
    async flush(boundMs) {
      const abort = AbortSignal.timeout(boundMs);
      const all = Promise.all([...inFlight, start("metrics", abort), start("logs", abort), start("traces", abort)]);
      let timer: NodeJS.Timeout | undefined;
      // An export that ignores its signal (a socket that will not close) still releases the caller.
      await Promise.race([all, new Promise<void>((resolve) => (timer = setTimeout(resolve, boundMs + 50)))]);
      clearTimeout(timer);
    },
    stop() {
      for (const timer of timers) clearInterval(timer);
    },
  };
}
