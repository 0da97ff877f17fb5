// The process side of a session's runner, and all of its state: which runner serves the session now
// (started from the pool on demand, its workspace opened there; or adopted from an earlier server),
// replacing one that died, does not answer, or will not end a cancelled run, and letting it go once
// the session has been idle a while, or stops. Requests ask it for a runner (ensure, current) and
// count as activity while they last (enter/leave, busyWith); they never touch the process state.
import type { RunnerHealth, SessionEndReason } from "@harness/protocol";
import { closeWorkspace, createRunnerClient, openWorkspace, type RunnerClient, type RunnerTransport } from "@harness/runner/client";
import { abortable, askHealth, HEALTH_TIMEOUT_MS, probe } from "./health.ts";
import type { RunnerProcess } from "./process.ts";
import type { SupervisorOptions } from "./supervisor.ts";
import { hostOf, workspaceId } from "./workspace-url.ts";

/** A runner serving the session: its process and the session's workspace on it. `retiring`: of
 * another version (see SupervisorOptions.runnerVersion), sent no new query. */
export type Live = { process: RunnerProcess; client: RunnerClient; url: string; retiring?: boolean };

export type LifecycleOptions = Pick<
  SupervisorOptions,
  "workspace" | "stateDir" | "beforeOpen" | "pool" | "group" | "member" | "idleMs" | "log" | "adopt" | "runnerVersion" | "onProcess" | "busyGraceMs"
>;

export type RunnerLifecycle = {
  /** A runner whose workspace answers /health and is free, starting or replacing one as needed. */
  ensure(signal: AbortSignal): Promise<Live>;
  /** ensure() after `before`, failing with why the runner did not start (unless the caller gave up). */
  started(signal: AbortSignal, before?: () => Promise<void>): Promise<Live>;
  /** The runner that serves the session now, without starting one. */
  current(): Promise<Live | undefined>;
  /** Replaces a runner that died or does not answer (its process is stopped for all its sessions:
   * it serves none of them), or drops a run that will not end (only this workspace is closed). */
  replace(old: Live | undefined, how?: "process" | "workspace"): Promise<Live>;
  /** A runner in place of `old`: the one already started in its place, if any (by another request
   * of this session), else a new one. */
  renewed(old: Live): Promise<Live>;
  /** `runner`'s run ended cleanly just now: a query soon after skips its health check (FRESH_MS). */
  vouch(runner: Live): void;
  /** The runner serving the session, if any, as it stands (no waiting). */
  live(): Live | undefined;
  /** The process that served the session last, also once it has exited: to say how it ended. */
  last(): RunnerProcess | undefined;
  /** Whether the session has stopped (stop was called). */
  stopped(): boolean;
  /** Counts a request as activity until the matching leave(): no idle stop meanwhile. */
  enter(): void;
  leave(): void;
  /** Counts `work` as activity: the runner is not stopped for idleness meanwhile. */
  busyWith<T>(work: () => Promise<T>): Promise<T>;
  /** Closes the session's workspace on its runner and releases the process. */
  stop(reason?: SessionEndReason): Promise<void>;
};

/** Opening a workspace is quick, but it is often a new process's first request, which waits for
 * the modules it loads after it listens: on a loaded machine that took more than 3 s. */
const OPEN_TIMEOUT_MS = 15_000;
/** A query this soon after a run of the same runner ended (its last event received) skips the
 * health check: the runner was answering and is free (it marks a run ended before sending the
 * run's last event), and its process is checked to be alive. */
const FRESH_MS = 10_000;
/** How often a process of another version is asked whether a run is still in flight on it. */
const RETIRE_POLL_MS = 250;

/** `transport`: how the runner is spoken to (the one that notes requests never answered, see
 * not-taken.ts), not SupervisorOptions.transport itself. */
export function runnerLifecycle(options: LifecycleOptions, transport: RunnerTransport): RunnerLifecycle {
  const { pool, group, member } = options;
  const id = workspaceId(options.workspace);
  let live: Live | undefined;
  let last: RunnerProcess | undefined;
  /** The runner whose last run ended cleanly, and until when that vouches for it. */
  let fresh: { live: Live; until: number } | undefined;
  let starting: Promise<Live> | undefined;
  let active = 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  /** Takes back the exit listener of the process tracked last (see track). */
  let untrack: (() => void) | undefined;

  function track(started: Live): Live {
    const { pid, token } = started.process;
    last = started.process;
    options.onProcess?.(pid === undefined ? undefined : { pid, url: started.url, ...(token && { token }) });
    // Taken back when the session lets go of the process: one the user's other sessions keep busy
    // may live on for days, and would otherwise hold every session it ever served.
    untrack?.();
    untrack = started.process.onExit(() => {
      untrack = undefined;
      if (live !== started) return;
      live = undefined;
      options.onProcess?.(undefined);
    });
    return started;
  }

  /** Records that no runner serves the session, unless another has started meanwhile. */
  function forget(): void {
    if (!live && !starting) options.onProcess?.(undefined);
  }

  // A runner left by an earlier server is taken over only once the workspace answers at its URL:
  // a pid alone may since belong to some other process.
  let adopting: Promise<void> | undefined;
  if (options.adopt) {
    const info = options.adopt;
    adopting = (async () => {
      const client = createRunnerClient(info.url, { transport, token: info.token });
      let health: RunnerHealth;
      try {
        health = await askHealth(client);
      } catch {
        forget();
        return;
      }
      if (stopped) return;
      const wanted = options.runnerVersion;
      const retiring = wanted !== undefined && health.version !== wanted;
      const proc = pool.adopt(group, member, { pid: info.pid, url: hostOf(info.url), ...(info.token && { token: info.token }) }, retiring);
      live = track({ process: proc, client, url: info.url, ...(retiring && { retiring }) });
      if (!retiring) {
        options.log(`runner ${info.pid} adopted for ${options.workspace}`, { pid: info.pid, workspace: options.workspace });
        return;
      }
      const what = health.busy ? "it finishes its run in flight, then is let go" : "it is idle and let go";
      options.log(`runner ${info.pid} adopted for ${options.workspace} runs another version (${health.version ?? "none"}, this server's ${wanted}): ${what}; the next query starts a runner of this version`, {
        level: "warn",
        pid: info.pid,
        workspace: options.workspace,
      });
      if (!health.busy) scheduleIdleStop();
    })();
  }

  /** Opens the workspace on `proc`, which the pool gave this session. */
  async function open(proc: RunnerProcess): Promise<Live> {
    const reach = { transport, token: proc.token };
    options.beforeOpen?.();
    const body = { workspace: options.workspace, ...(options.stateDir && { stateDir: options.stateDir }) };
    const url = await openWorkspace(proc.url, id, body, { ...reach, signal: AbortSignal.timeout(OPEN_TIMEOUT_MS) });
    return { process: proc, client: createRunnerClient(url, reach), url };
  }

  async function start(): Promise<Live> {
    const proc = await pool.acquire(group, member);
    try {
      const opened = await open(proc);
      options.log(`runner ${proc.pid} serves ${options.workspace}`, { pid: proc.pid, workspace: options.workspace });
      return track(opened);
    } catch (error) {
      await pool.release(proc, member);
      throw error;
    }
  }

  async function replace(old: Live | undefined, how: "process" | "workspace" = "process"): Promise<Live> {
    if (old) {
      if (live === old) live = undefined;
      if (how === "workspace" && old.process.alive()) {
        await closeOn(old.process);
        starting ??= open(old.process)
          .then(track)
          .finally(() => (starting = undefined));
      } else {
        await pool.discard(old.process);
      }
    }
    starting ??= start().finally(() => (starting = undefined));
    live = await starting;
    return live;
  }

  async function renewed(old: Live): Promise<Live> {
    if (starting) await starting.catch(() => undefined);
    if (live && live !== old && live.process.alive()) return live;
    return replace(old);
  }

  async function current(): Promise<Live | undefined> {
    await adopting;
    if (starting) await starting.catch(() => undefined);
    return live?.process.alive() ? live : undefined;
  }

  async function ensure(signal: AbortSignal): Promise<Live> {
    await adopting;
    if (starting) await starting.catch(() => undefined);
    const running = live;
    if (!running || !running.process.alive()) return replace(running);
    if (running.retiring) {
      live = undefined;
      void letGo(running);
      return replace(undefined);
    }
    const vouched = fresh;
    fresh = undefined;
    if (vouched?.live === running && performance.now() < vouched.until) return running;
    const deadline = Date.now() + (options.busyGraceMs ?? 5000);
    for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
      const health = await probe(running.client, signal);
      if (health === "free") return running;
      if (health === "closed") return replace(running, "workspace");
      if (health !== "busy") {
        options.log(`runner ${running.process.pid} ${health.wrong}; restarting it`, { level: "warn", pid: running.process.pid, workspace: options.workspace });
        return replace(running);
      }
      if (Date.now() > deadline) {
        options.log(`the run in ${options.workspace} does not end; closing the workspace on runner ${running.process.pid}`, { level: "warn", pid: running.process.pid, workspace: options.workspace });
        return replace(running, "workspace");
      }
      // Still winding down a cancelled run.
      await abortable(wait, signal);
    }
  }

  async function started(signal: AbortSignal, before?: () => Promise<void>): Promise<Live> {
    try {
      await before?.();
      return await ensure(signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new Error(`the runner failed to start: ${(err as Error).message}`);
    }
  }

  /** Closes the workspace on `proc` (cancelling its run), as far as the process still answers. */
  async function closeOn(proc: RunnerProcess, reason?: SessionEndReason): Promise<void> {
    await closeWorkspace(proc.url, id, { transport, token: proc.token, signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS), ...(reason && { reason }) }).catch(() => false);
  }

  /** Closes the workspace and gives the process back to the pool. */
  async function letGo(running: Live, reason?: SessionEndReason): Promise<void> {
    if (last === running.process) {
      untrack?.();
      untrack = undefined;
    }
    if (running.process.alive()) await closeOn(running.process, reason);
    if (running.retiring) await untilNoRunOn(running.process);
    await pool.release(running.process, member);
  }

  /** Resolves once `proc` (a runner of another version, let go) says no run is in flight on it (one
   * of another session, which this server may not have adopted yet, see RunnerPool.adopt), or once
   * it is gone or does not answer: its workspace is closed at once, its process released only then. */
  async function untilNoRunOn(proc: RunnerProcess): Promise<void> {
    const host = createRunnerClient(proc.url, { transport, token: proc.token });
    while (proc.alive() && !stopped) {
      const busy = await host.health(AbortSignal.timeout(HEALTH_TIMEOUT_MS)).then((h) => h.busy, () => false);
      if (!busy) return;
      await new Promise((r) => setTimeout(r, RETIRE_POLL_MS));
    }
  }

  /** Lets go of the runner after the idle time, or at once when it is of another version. */
  function scheduleIdleStop(): void {
    if (idleTimer) clearTimeout(idleTimer);
    const retiring = live?.retiring === true;
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      const running = live;
      if (active > 0 || !running) return;
      // Another runner took the place of the one of another version: it gets the usual time.
      if (retiring && !running.retiring) return scheduleIdleStop();
      live = undefined;
      if (!retiring) options.log(`${options.workspace} idle for ${options.idleMs} ms; releasing runner ${running.process.pid}`, { pid: running.process.pid, workspace: options.workspace });
      void letGo(running).then(forget);
    }, retiring ? 0 : options.idleMs);
    idleTimer.unref();
  }

  function enter(): void {
    active++;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
  }

  function leave(): void {
    active--;
    if (active === 0 && !stopped) scheduleIdleStop();
  }

  async function busyWith<T>(work: () => Promise<T>): Promise<T> {
    enter();
    try {
      return await work();
    } finally {
      leave();
    }
  }

  return {
    ensure,
    started,
    current,
    replace,
    renewed,
    vouch(runner) {
      fresh = { live: runner, until: performance.now() + FRESH_MS };
    },
    live: () => live,
    last: () => last,
    stopped: () => stopped,
    enter,
    leave,
    busyWith,
    async stop(reason) {
      stopped = true;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = undefined;
      await adopting;
      const pending = starting?.catch(() => undefined);
      const running = live ?? (await pending);
      live = undefined;
      if (running) {
        await letGo(running, reason);
        forget();
      }
    },
  };
}
