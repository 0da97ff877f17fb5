// What every kind of hook shares as it runs: its result's shape (its time limit on top of the run's
// cancellation is process/time-limit.ts).
import type { HookRunResult } from "./types.ts";

/** Builds a hook's result from the fields it sets, the rest at their defaults, its duration
 * measured from this call. */
export function hookOutcome(command: string, via?: HookRunResult["via"]): (fields: Partial<HookRunResult>) => HookRunResult {
  const started = performance.now();
  return (fields) => ({
    command,
    exitCode: null,
    stdout: "",
    stderr: "",
    durationMs: performance.now() - started,
    timedOut: false,
    aborted: false,
    suppressOutput: false,
    ...(via && { via }),
    ...fields,
  });
}
