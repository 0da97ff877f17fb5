// What every kind of hook shares as it runs: its result's shape, and a time limit on top of the
// run's cancellation.
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

/** A signal that fires when `signal` does or `timeoutMs` passes; `timedOut` tells which. `done`
 * releases the timer and the listener. */
export function timeLimit(signal: AbortSignal, timeoutMs: number): { signal: AbortSignal; timedOut(): boolean; done(): void } {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  signal.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    },
  };
}
