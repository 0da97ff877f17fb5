// The background shells while no run is under way. They live in the runner, which keeps them from
// run to run; a run reports them (shells.changed) while it lasts, but a shell that ends between runs
// has nobody to tell. So while the state shows a shell running and no run is under way, the session
// asks its runner for the list with the version it holds (a long poll: the runner answers once the
// list differs, or after a bounded wait, and is asked again), and applies each change as a run's
// shells.changed would. It stops when a run starts (the run's events take over), when no shell runs
// any more, when the runner cannot be asked (none serves the session: the next run brings the list
// up to date), and when the session ends here. An answer to a version that changes nothing in the
// state (the runner's wait ended; or a runner that does not wait) is followed by a pause before the
// next ask, so that a runner answering at once every time is not asked in a tight loop.
import type { SessionCore } from "./core.ts";
import { shellsOps } from "./translate.ts";

/** The pause after an answer that changed nothing. */
export const UNCHANGED_PAUSE_MS = 1000;

/** The watch of each session, while one goes on. */
const watches = new WeakMap<SessionCore, AbortController>();

/** Why a watch is stopped: made once (a reasonless abort() makes a DOMException every time). */
const STOPPED = new DOMException("the session's shells are no longer watched", "AbortError");

const anyRunning = (core: SessionCore) => core.state.shells?.some((shell) => shell.status === "running") === true;

/** Starts watching the shells when the session has no run, a shell running, and a runner that lists
 * them; nothing when a watch goes on already. */
export function watchIdleShells(core: SessionCore): void {
  const ask = core.options.runner.shells?.bind(core.options.runner);
  if (!ask || watches.has(core) || core.ended || core.run || !anyRunning(core)) return;
  const controller = new AbortController();
  watches.set(core, controller);
  const { signal } = controller;
  const going = () => !signal.aborted && !core.ended && !core.run;
  void (async () => {
    let version: string | undefined;
    while (going() && anyRunning(core)) {
      const asked = version;
      const answer = await ask(asked, { signal }).catch(() => undefined);
      if (!answer?.ok || !going()) return;
      version = answer.value.version;
      const ops = shellsOps(core.state, answer.value.shells);
      if (ops.length > 0) core.commit(ops);
      else if (asked !== undefined) await pause(UNCHANGED_PAUSE_MS, signal);
    }
  })().finally(() => {
    if (watches.get(core) === controller) watches.delete(core);
  });
}

/** Resolves after `ms`, or at once when `signal` aborts (the timer then cleared). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Stops the watch, if one goes on (a run starts, the session ends here). */
export function stopWatchingIdleShells(core: SessionCore): void {
  const controller = watches.get(core);
  if (!controller) return;
  watches.delete(core);
  controller.abort(STOPPED);
}
