// Telemetry for this process's runs, when CLAUDE_CODE_ENABLE_TELEMETRY turns it on: the exporter
// and a wrapper that has each run of a backend report what it does. Loaded only then (active.ts
// imports it dynamically), so that a process without telemetry loads none of it.
import { readFileSync } from "node:fs";
import { hideInDebugLog } from "@harness/llm/debug-log";
import type { Backend, RunOutcome } from "../backend.ts";
import { telemetryConfig } from "./config.ts";
import { createExporter, type Sinks } from "./exporter.ts";
import { observeRun, type RunWho } from "./observe-run.ts";
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
  if (!config.metrics && !config.logs) return undefined;
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
          const observer = observeRun(query, who ?? { ...(query.telemetry && query.telemetry) }, { exporter, config, appVersion: VERSION, ...(terminal && { terminal }) });
          const emit = ctx.emit;
          let outcome: RunOutcome | undefined;
          try {
            outcome = await backend.run(query, {
              ...ctx,
              emit: (event) => {
                emit(event);
                observer.event(event);
              },
            });
            return outcome;
          } finally {
            observer.end(outcome);
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
