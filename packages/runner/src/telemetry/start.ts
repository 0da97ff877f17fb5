// Telemetry for this process's runs, when CLAUDE_CODE_ENABLE_TELEMETRY turns it on: the exporter
// and a wrapper that has each run of a backend report what it does. Loaded only then (active.ts
// imports it dynamically), so that a process without telemetry loads none of it.
import { readFileSync } from "node:fs";
import { hideInDebugLog } from "@harness/llm/debug-log";
import type { Backend, RunOutcome } from "../backend.ts";
import { telemetryConfig } from "./config.ts";
import { createExporter, type Sinks } from "./exporter.ts";
import { observeRun, type RunObserver, type RunWho } from "./observe-run.ts";
import { parseTraceParent, traceRun, type TraceParent } from "./trace-run.ts";
import type { Attributes } from "./otlp-model.ts";

type Env = Readonly<Record<string, string | undefined>>;

export type Telemetry = {
  /** `backend` with each run reporting; `who` says whose runs they are (else the query's). */
  wrap(backend: Backend, who?: RunWho): Backend;
  /** Sends what is pending within `boundMs` and stops. */
  shutdown(boundMs: number): Promise<void>;
};

const VERSION = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;

/** Telemetry as `env` configures it, or undefined when it is off; each note (a value that could
 * not be used, named by its variable) goes to `note`. */
export function startTelemetry(env: Env, sinks: Sinks & { note: (message: string) => void }): Telemetry | undefined {
  const config = telemetryConfig(env);
  if (!config) return undefined;
  for (const note of config.notes) sinks.note(note);
  if (!config.metrics && !config.logs && !config.traces) return undefined;
  let parent: TraceParent | undefined;
  if (config.traces && env.TRACEPARENT?.trim()) {
    const parsed = parseTraceParent(env.TRACEPARENT);
    if ("error" in parsed) sinks.note(parsed.error);
    else parent = parsed;
  }
  // Header values are credentials: the debug log hides them wherever they would show.
  hideInDebugLog(config.secrets);
  const resource: Attributes = {
    "service.name": "harness",
    "service.version": VERSION,
    ...config.resource,
    ...(env.OTEL_SERVICE_NAME?.trim() && { "service.name": env.OTEL_SERVICE_NAME.trim() }),
  };
  const exporter = createExporter(config, { resource, scope: { name: "harness", version: VERSION } }, sinks);
  const terminal = env.TERM_PROGRAM?.trim() || undefined;
  return {
    wrap(backend, who) {
      return {
        ...backend,
        async run(query, ctx) {
          const runWho = who ?? { ...(query.telemetry && query.telemetry) };
          const deps = { exporter, config, appVersion: VERSION, ...(terminal && { terminal }) };
          const observers: RunObserver[] = [];
          if (config.metrics || config.logs) observers.push(observeRun(query, runWho, deps));
          const tracer = exporter.tracing ? traceRun(query, runWho, { ...deps, ...(parent && { parent }) }) : undefined;
          if (tracer) observers.push(tracer);
          const emit = ctx.emit;
          let outcome: RunOutcome | undefined;
          try {
            outcome = await backend.run(query, {
              ...ctx,
              ...(tracer && { toolEnv: (id: string) => ({ ...ctx.toolEnv?.(id), ...tracer.toolEnv(id) }) }),
              emit: (event) => {
                emit(event);
                for (const observer of observers) observer.event(event);
              },
            });
            return outcome;
          } finally {
            for (const observer of observers) observer.end(outcome);
          }
        },
      };
    },
    async shutdown(boundMs) {
      exporter.stop();
      await exporter.flush(boundMs);
    },
  };
}
