// A caller's signal with a time limit added: what hooks and registered tools wait for their work under.

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
