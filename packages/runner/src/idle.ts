// Exit after a quiet spell: a runner whose server died must not live forever.

export type IdleTimer = {
  /** Something happened: the quiet spell starts again. */
  touch(): void;
  stop(): void;
};

/** Calls `onIdle` once `ms` have passed since the last touch() while `busy()` is false; while busy
 * it waits another `ms`. */
export function createIdleTimer(ms: number, busy: () => boolean, onIdle: () => void): IdleTimer {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let touches = 0;
  const arm = () => {
    if (stopped) return;
    touches++;
    if (timer) clearTimeout(timer);
    timer = setTimeout(fire, ms);
    timer.unref();
  };
  const fire = () => {
    timer = undefined;
    const seen = touches;
    // Timers run before pending I/O: after a long busy stretch of the event loop, a request may be
    // waiting. Decide only after that I/O has had its turn.
    setImmediate(() => {
      if (stopped || touches !== seen) return;
      if (busy()) arm();
      else onIdle();
    });
  };
  arm();
  return {
    touch: arm,
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

export const DEFAULT_IDLE_EXIT_MS = 15 * 60_000;

/** HARNESS_RUNNER_IDLE_EXIT_MS: a whole number of milliseconds; 0 turns idle exit off. */
export function idleExitMs(text: string | undefined): { ok: true; ms: number } | { ok: false; error: string } {
  if (text === undefined || text.trim() === "") return { ok: true, ms: DEFAULT_IDLE_EXIT_MS };
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 0) return { ok: false, error: `HARNESS_RUNNER_IDLE_EXIT_MS must be a whole number of milliseconds (0: never), got "${text}"` };
  return { ok: true, ms };
}
