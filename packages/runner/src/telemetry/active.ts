// This process's telemetry, if any: started once (startProcessTelemetry), then asked for by every
// run (withTelemetry). Off (CLAUDE_CODE_ENABLE_TELEMETRY unset, the usual case) the rest of the
// folder is never loaded and a run pays one test of a variable.
import type { Backend } from "../backend.ts";
import { telemetryEnabled } from "./enabled.ts";
import type { RunWho } from "./observe-run.ts";
import { telemetryEnv } from "./settings-env.ts";
import type { Telemetry } from "./start.ts";
import type { Sinks } from "./exporter.ts";

let active: Telemetry | undefined;

/** How long a process's exit waits, at most, for what telemetry has still to send. */
export const TELEMETRY_EXIT_BOUND_MS = 2000;

/** Starts telemetry when the environment (the settings' env over it) turns it on. */
export async function startProcessTelemetry(env: Readonly<Record<string, string | undefined>>, sinks: Sinks & { note: (message: string) => void }): Promise<void> {
  const full = telemetryEnv(env);
  if (!telemetryEnabled(full)) return;
  active = (await import("./start.ts")).startTelemetry(full, sinks);
}

/** `backend`, reporting its runs when telemetry is on. */
export function withTelemetry(backend: Backend, who?: RunWho): Backend {
  return active ? active.wrap(backend, who) : backend;
}

/** Claude Code's own telemetry settings for a run of the claude-code backend (its --settings env).
 * With Harness's on, the run's calls, tools and cost are reported once, by Harness (its events are
 * the run's events). Claude Code under a runner has a home of its own and takes telemetry settings
 * from its environment (which carries no OTEL_*), --settings and the managed settings only (not a
 * workspace's); its exporter would report the run again under claude_code.*, so --settings turns
 * it off, unless HARNESS_CLAUDE_CODE_TELEMETRY=1 asks for both. Managed settings still rank above
 * --settings: an organisation that turns Claude Code's on there gets both. With Harness's off,
 * Claude Code does as its settings say. */
export function claudeCodeTelemetryEnv(env: Readonly<Record<string, string | undefined>> = process.env): Record<string, string> {
  if (!active || env.HARNESS_CLAUDE_CODE_TELEMETRY?.trim() === "1") return {};
  return { CLAUDE_CODE_ENABLE_TELEMETRY: "0" };
}

/** Sends what is pending, waiting at most `boundMs`; nothing when telemetry is off. */
export async function stopTelemetry(boundMs: number): Promise<void> {
  const telemetry = active;
  active = undefined;
  await telemetry?.shutdown(boundMs);
}
