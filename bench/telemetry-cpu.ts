// What OpenTelemetry export costs a runner: its CPU per short run (as run-cpu.ts measures it) with
// telemetry on, exporting metrics and events over http/protobuf to the fake collector at short
// intervals (so that exports happen while it is measured), beside the same runner with telemetry
// off. The two run in blocks, alternated, and each one's CPU is read over the whole measure (the
// on runner's exports between its blocks count too); what reached the collector is counted, to
// show the exports happened.
import { startFakeOtlpCollector } from "@harness/test-utils";
import { cpuMs, fmt, startModelProcess } from "./lib.ts";
import { startBenchRunner, WARM_UP, type BenchRunner } from "./run-cpu.ts";

/** The export interval of both signals: short, so that a measure of a few seconds sees many exports. */
export const EXPORT_INTERVAL_MS = 200;

export type TelemetryCpu = { onMs: number; offMs: number; runs: number; requests: number; events: number; points: number };

/** `rounds` rounds, each a block of `runsPerBlock` runs on either runner (which goes first alternates). */
export async function measureTelemetryCpu(modelUrl: string, rounds: number, runsPerBlock: number): Promise<TelemetryCpu> {
  const collector = await startFakeOtlpCollector();
  // No OTEL_* of the bench's own environment reaches either runner.
  const cleared = Object.fromEntries(Object.keys(process.env).filter((name) => name.startsWith("OTEL_") || name === "CLAUDE_CODE_ENABLE_TELEMETRY").map((name) => [name, undefined]));
  const runners: BenchRunner[] = [];
  try {
    const off = await startBenchRunner(modelUrl, cleared);
    runners.push(off);
    const on = await startBenchRunner(modelUrl, {
      ...cleared,
      CLAUDE_CODE_ENABLE_TELEMETRY: "1",
      OTEL_METRICS_EXPORTER: "otlp",
      OTEL_LOGS_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf",
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_METRIC_EXPORT_INTERVAL: String(EXPORT_INTERVAL_MS),
      OTEL_LOGS_EXPORT_INTERVAL: String(EXPORT_INTERVAL_MS),
    });
    runners.push(on);
    // Every run sends an api_request event and adds 1 to harness.session.count (a query with no history).
    const apiRequests = () => collector.events().filter((e) => e.eventName === "harness.api_request").length;
    const sessions = () => collector.points().reduce((sum, p) => sum + (p.name === "harness.session.count" ? p.value : 0), 0);
    const exported = async (runs: number) => {
      await collector.waitFor(() => apiRequests() >= runs, 10_000, `the api_request events of ${runs} runs`);
      await collector.waitFor(() => sessions() >= runs, 10_000, `the session counts of ${runs} runs`);
    };
    for (let i = 0; i < WARM_UP; i++) {
      await off.oneRun();
      await on.oneRun();
    }
    await exported(WARM_UP);
    const seen = { requests: collector.requests.length, events: collector.events().length, points: collector.points().length };
    const before = [await cpuMs([off.pid]), await cpuMs([on.pid])];
    for (let round = 0; round < rounds; round++) {
      for (const runner of round % 2 === 0 ? [off, on] : [on, off]) for (let i = 0; i < runsPerBlock; i++) await runner.oneRun();
    }
    const runs = rounds * runsPerBlock;
    await exported(WARM_UP + runs);
    const after = [await cpuMs([off.pid]), await cpuMs([on.pid])];
    return {
      offMs: (after[0] - before[0]) / runs,
      onMs: (after[1] - before[1]) / runs,
      runs,
      requests: collector.requests.length - seen.requests,
      events: collector.events().length - seen.events,
      points: collector.points().length - seen.points,
    };
  } finally {
    for (const runner of runners) await runner.stop();
    await collector.close();
  }
}

/** The row of `npm run bench`: figure, Harness, baseline, ratio. */
export function telemetryCpuRow(t: TelemetryCpu): string[] {
  return [
    `runner CPU per short run with OpenTelemetry export on (http/protobuf to a fake collector, metrics and events every ${EXPORT_INTERVAL_MS} ms), against the same runner with it off, alternated`,
    `${fmt(t.onMs)} ms (the collector got ${t.requests} exports: ${t.events} events, ${t.points} metric points, of ${t.runs} runs)`,
    `telemetry off ${fmt(t.offMs)} ms`,
    `ratio ${fmt(t.onMs / t.offMs)}×`,
  ];
}

// Alone: `bash scripts/node.sh bench/telemetry-cpu.ts [rounds] [runs per block]`.
if (import.meta.main) {
  const count = (given: string | undefined, fallback: number, what: string) => {
    const n = Number(given ?? fallback);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${what} must be a whole number of at least 1, got "${given}"`);
    return n;
  };
  const rounds = count(process.argv[2], 30, "rounds");
  const runsPerBlock = count(process.argv[3], 10, "runs per block");
  const model = await startModelProcess();
  try {
    console.log(telemetryCpuRow(await measureTelemetryCpu(model.url, rounds, runsPerBlock)).join("  |  "));
  } finally {
    model.stop();
  }
}
