// What the debug log (`harness run --debug hooks`) says of each hook run: its event, what the
// matchers were tested on, what ran, how it ended and how long it took. Never its input or output.
import { debugLog, debugOn } from "@harness/llm/debug-log";
import type { HookEventName, HookRunResult } from "./types.ts";

function ending(run: HookRunResult): string {
  if (run.aborted) return "was stopped with the run";
  if (run.timedOut) return "timed out";
  if (run.error !== undefined) return `failed: ${run.error}`;
  return run.exitCode === null ? "ended without an exit code" : `exited ${run.exitCode}`;
}

/** Logs a hook's run and gives it back; `target`: the tool name, source… its matchers were tested on. */
export function hookDebug(event: HookEventName, target: string | undefined): (run: HookRunResult) => HookRunResult {
  return (run) => {
    if (debugOn("hooks")) {
      const on = target === undefined || target === "" ? event : `${event} on ${target}`;
      debugLog("hooks", `${on}: ${run.via ?? "command"} ${JSON.stringify(run.command)} ${ending(run)} after ${Math.round(run.durationMs)} ms`);
    }
    return run;
  };
}
