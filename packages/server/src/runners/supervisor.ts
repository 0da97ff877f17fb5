// The runner of one session: its workspace opened on a runner process from the pool on the first
// query, reused while its /health answers, closed (and the process released) after it has been idle
// for a while, and opened again when needed. A runner left running by an earlier server (it died
// mid-run) is adopted, so its run can be re-attached to; one that has gone since is replaced by the
// copy it kept of its run's end, when the run ended with nobody listening.
import { createHash } from "node:crypto";
import { isRunEnd, type RewindResult, type RunnerHealth, type RunEndEvent, type RunnerEvent, type RunnerQuery, type RunnerRunOptions, type RunnerMcpProbe, type RunnerMcpProbeResult, type RunnerToolCall, type SessionEndReason } from "@harness/protocol";
import { closeWorkspace, createRunnerClient, openWorkspace, RunnerHttpError, type RunnerClient, type RunnerTransport } from "@harness/runner/client";
import { forgetFinishedRun, readFinishedRun } from "@harness/runner/finished-runs";
import { nodeTransport } from "@harness/runner/node-transport";
import { createTurnGate } from "@harness/runner/turn-gate";
import type { RunControl, RunnerAnswer, RunnerPort } from "@harness/session";
import { calledOnce, NotTakenError, takenOnce, unansweredRequests, type Resending } from "./not-taken.ts";
import { attachRun, postControl, postRewind, queryRun } from "./link.ts";
import type { QueryCredentials } from "./query-credentials.ts";
import type { RunnerPool } from "./pool.ts";
import { describeEnd, type ProcessEnd, type RunnerProcess, type RunnerProcessInfo } from "./process.ts";
import type { ServerLog } from "../log/writer.ts";

export type { RunnerProcessInfo };

export type SupervisedRunner = RunnerPort & {
  /** Closes the session's workspace on its runner and releases the process; its conversation
   * ends for `reason` (what its SessionEnd hooks are told; default "other"). */
  stop(reason?: SessionEndReason): Promise<void>;
  /** The process id of the session's runner, if one serves it now. */
  pid(): number | undefined;
  /** The base URL of the session's workspace on its runner (a whole RunnerProtocol), if any. */
  url(): string | undefined;
  /** One of the session's tools called directly on its runner (started if need be; see
   * @harness/protocol runner-tools.ts). Aborting `signal` stops the call. */
  invokeTool(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncIterable<RunnerEvent>;
  /** The session's MCP servers started on its runner (started if need be) as a run starts them,
   * asked what they offer and stopped (see @harness/protocol runner-mcp.ts). */
  probeMcp(body: RunnerMcpProbe, opts: { signal: AbortSignal }): Promise<RunnerMcpProbeResult>;
};

export type SupervisorOptions = {
  workspace: string;
  /** The runner's own state for the workspace (checkpoints, a backend's transcripts). */
  stateDir?: string;
  /** Runs before the workspace is opened on a runner process (not when one is adopted). */
  beforeOpen?: () => void;
  /** Where the session's runner processes come from. */
  pool: RunnerPool;
  /** The sessions this one may share runner processes with (by default, those of its user). */
  group: string;
  /** This session, unique within the pool. */
  member: string;
  /** The runners' debug log is on: each query names its session (`member`) as its debugLabel. Only
   * then, so that a runner of an older version, adopted after an upgrade, is not sent a field it
   * refuses unless the debug log asks for it. */
  labelsDebug?: boolean;
  /** Credentials sent with every query (the runner's environment holds none), asked for each; a
   * rejection ends the run with its message. */
  credentials?: () => Promise<QueryCredentials>;
  /** What every query carries on top of the session's (the server's runOptions): with each query,
   * not with the runner process, which may outlive this server and serve the next one. */
  runOptions?: RunnerRunOptions;
  /** The session's `.mcp.json` servers its API caller approved, asked for each query and direct call
   * (RunnerQuery.mcpApprovals). */
  mcpApprovals?: () => readonly { name: string; entry: string }[];
  /** Whether a query goes in plan mode now, over the session's mode (see ServerOptions.planMode). */
  planMode?: () => boolean;
  /** A run's failure is told in the words of the user's shell (see ServerOptions.userShell). */
  userShell?: boolean;
  /** The workspace is closed and the process released after this long without activity. */
  idleMs: number;
  log: ServerLog;
  /** The runner an earlier server used for this session (url: the workspace's URL), to take over. */
  adopt?: RunnerProcessInfo;
  /** The version of the runners this server starts (RunnerHealth.version). An adopted runner of
   * another one (the code before an upgrade) serves only the run it has in flight, followed to its
   * end, and is then let go (its process stopped once no session has a run on it): its query body
   * and events may be other than this server's. */
  runnerVersion?: string;
  /** Hears each change of the session's runner (undefined: none serves it), to record it. */
  onProcess?: (info: RunnerProcessInfo | undefined) => void;
  /** How long a workspace may stay busy with a cancelled run before that run is dropped (default 5 s). */
  busyGraceMs?: number;
  /** How the server speaks HTTP to the runner (default: node:http, shared by all sessions). */
  transport?: RunnerTransport;
  /** A run silent this long has its runner asked /health; one that does not answer (a process
   * stopped or hung) is stopped, and its runs end saying so (default 30 s). */
  stallMs?: number;
};

/** `retiring`: of another version (see SupervisorOptions.runnerVersion), sent no new query. */
type Live = { process: RunnerProcess; client: RunnerClient; url: string; retiring?: boolean };

const HEALTH_TIMEOUT_MS = 3000;
const STALL_MS = 30_000;
/** Opening a workspace is quick, but it is often a new process's first request, which waits for
 * the modules it loads after it listens: on a loaded machine that took more than 3 s. */
const OPEN_TIMEOUT_MS = 15_000;
/** A query this soon after a run of the same runner ended (its last event received) skips the
 * health check: the runner was answering and is free (it marks a run ended before sending the
 * run's last event), and its process is checked to be alive. */
const FRESH_MS = 10_000;
const REWIND_TIMEOUT_MS = 60_000;
/** How often a process of another version is asked whether a run is still in flight on it. */
const RETIRE_POLL_MS = 250;
/** How long a broken run stream waits for its runner's exit to be noticed, to say the runner died:
 * the connection closes before the process's exit is reported. */
const EXIT_WAIT_MS = 1000;
const BUSY_WITH_TOOL_CALL = "a tool call made directly is in flight in this session";
const BUSY_WITH_PROBE = "its MCP servers are being asked (an MCP probe) in this session";
/** How the server speaks HTTP to its runners: node:http, cheaper per event than fetch. */
const sharedTransport = nodeTransport();
/** Queries leave one per event-loop turn: a hundred prompts submitted at once do not hold up the
 * events of the runs already streaming while their requests are made. */
const queryTurn = createTurnGate();

function abortable(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Whether `proc` has exited, or does within `ms`. */
async function exitsWithin(proc: RunnerProcess, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (proc.alive()) {
    const left = deadline - performance.now();
    if (left <= 0) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([proc.exited, new Promise((resolve) => (timer = setTimeout(resolve, Math.min(left, 50))))]);
    clearTimeout(timer);
  }
  return true;
}

/** The health of the workspace `client` speaks to, given HEALTH_TIMEOUT_MS to answer (and `signal`). */
function askHealth(client: RunnerClient, signal?: AbortSignal): Promise<RunnerHealth> {
  return client.health(signal ? AbortSignal.any([signal, AbortSignal.timeout(HEALTH_TIMEOUT_MS)]) : AbortSignal.timeout(HEALTH_TIMEOUT_MS));
}

/** What a runner's /health says of it: free or busy; "closed" when the process answers but no longer
 * has the workspace open (it was closed meanwhile); else what is wrong with it, in words. */
type Probe = "free" | "busy" | "closed" | { wrong: string };

/** Asks `runner` how it is (see Probe); throws only when `signal` aborts. */
async function probe(runner: Live, signal: AbortSignal): Promise<Probe> {
  let health: RunnerHealth;
  try {
    health = await askHealth(runner.client, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    if (err instanceof RunnerHttpError && err.status === 404) return "closed";
    return { wrong: `does not answer /health (${(err as Error).message})` };
  }
  if (!health.ok) return { wrong: "is not ok" };
  return health.busy ? "busy" : "free";
}

/** Why a run failed whose runner process ended. */
function diedMidRun(end: ProcessEnd): string {
  return `the runner process ${describeEnd(end, " during the run")}`;
}

/** A workspace's id on a runner host: stable for a workspace path, so that a server that restarts
 * finds the same one. */
export function workspaceId(workspace: string): string {
  return createHash("sha256").update(workspace).digest("base64url").slice(0, 24);
}

/** The base URL of the runner process that serves the workspace at `url`. */
function hostOf(url: string): string {
  return url.replace(/\/workspaces\/[^/]+\/?$/, "");
}

export function createSupervisedRunner(options: SupervisorOptions): SupervisedRunner {
  const { pool, group, member } = options;
  // Requests a runner never answered may go to another runner (see resend).
  const unanswered = unansweredRequests(options.transport ?? sharedTransport);
  const transport = unanswered.transport;
  const id = workspaceId(options.workspace);
  let live: Live | undefined;
  /** The process that served the session last, also once it has exited: to say how it ended. */
  let last: RunnerProcess | undefined;
  /** The process this session's runs found no longer answering, and what to say of it. */
  let stall: { process: RunnerProcess; message: string } | undefined;
  /** What to say of `process` if it is the one found no longer answering. */
  const stallOf = (process: RunnerProcess | undefined) => (process && stall?.process === process ? stall.message : undefined);
  /** The runner whose last run ended cleanly, and until when that vouches for it. */
  let fresh: { live: Live; until: number } | undefined;
  let starting: Promise<Live> | undefined;
  let active = 0;
  /** What is in flight directly (a tool call, a probe: at most one), as a refusal says it. */
  let calling: string | undefined;
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

  /** Replaces a runner that died or does not answer (its process is stopped for all its sessions:
   * it serves none of them), or drops a run that will not end (only this workspace is closed). */
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

  /** The runner that serves the session now, without starting one. */
  async function current(): Promise<Live | undefined> {
    await adopting;
    if (starting) await starting.catch(() => undefined);
    return live?.process.alive() ? live : undefined;
  }

  /** A runner whose workspace answers /health and is free, starting or replacing one as needed. */
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
      const health = await probe(running, signal);
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

  /** Counts `work` as activity: the runner is not stopped for idleness meanwhile. */
  async function busyWith<T>(work: () => Promise<T>): Promise<T> {
    active++;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
    try {
      return await work();
    } finally {
      active--;
      if (active === 0 && !stopped) scheduleIdleStop();
    }
  }

  /** The events `open` streams from the runner `serving` names (which changes when a query goes to
   * another runner, see takenOnce). A stream that broke because the runner process died ends with
   * an error that says so, the same for every session it served. */
  async function* streaming(signal: AbortSignal, open: () => Promise<{ serving: () => Live; events: AsyncGenerator<RunnerEvent> }>): AsyncGenerator<RunnerEvent> {
    if (stopped) throw new Error("the server is shutting down");
    active++;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
    let serving: (() => Live) | undefined;
    let lastEvent = performance.now();
    let watch: ReturnType<typeof setInterval> | undefined;
    try {
      const opened = await open();
      serving = opened.serving;
      // A silent run is normal (a long command, an approval awaited); a runner that no longer
      // answers /health is not, and its streams would wait for good.
      const stallMs = options.stallMs ?? STALL_MS;
      let probing = false;
      watch = setInterval(() => {
        if (probing || performance.now() - lastEvent < stallMs) return;
        probing = true;
        const watched = opened.serving();
        void askHealth(watched.client).then(
          () => {
            probing = false;
            lastEvent = performance.now();
          },
          (err: unknown) => {
            const message = `the runner stopped answering (nothing for ${Math.round(stallMs / 1000)} s, and /health: ${(err as Error).message}); it was stopped`;
            stall = { process: watched.process, message };
            options.log(`runner ${watched.process.pid} of ${options.workspace}: ${message}`, { level: "error", pid: watched.process.pid, workspace: options.workspace });
            void watched.process.stop(1000);
          },
        );
      }, Math.max(50, Math.floor(stallMs / 4)));
      watch.unref();
      for await (const event of opened.events) {
        lastEvent = performance.now();
        yield event;
      }
      const stalled = stallOf(opened.serving().process);
      if (stalled) throw new Error(stalled);
    } catch (error) {
      if (error instanceof NotTakenError) throw error;
      const runner = serving?.();
      // This stream's watcher, or another's of this session, found the runner hung and stopped it.
      const stalled = stallOf(runner?.process);
      if (stalled) throw new Error(stalled, { cause: error });
      if (!runner || signal.aborted || stopped || error instanceof RunnerHttpError) throw error;
      if (await exitsWithin(runner.process, EXIT_WAIT_MS)) throw new Error(diedMidRun(runner.process.ended() ?? { how: "exited" }), { cause: error });
      throw error;
    } finally {
      clearInterval(watch);
      active--;
      if (active === 0 && !stopped) scheduleIdleStop();
    }
  }

  /** `body` with what every request carries besides the session's: its owner (telemetry), the
   * debug label, the server's runOptions and the session's approvals of `.mcp.json` servers. */
  function carrying<T extends RunnerQuery | RunnerToolCall | RunnerMcpProbe>(body: T): T {
    const approvals = options.mcpApprovals?.() ?? [];
    return {
      ...body,
      telemetry: ownerOf(options.member),
      ...(options.labelsDebug && { debugLabel: options.member }),
      ...(options.runOptions && { runOptions: options.runOptions }),
      ...(approvals.length > 0 && { mcpApprovals: [...approvals] }),
    };
  }

  /** ensure(), failing with why the runner did not start (unless the caller gave up). */
  async function started(signal: AbortSignal, before?: () => Promise<void>): Promise<Live> {
    try {
      await before?.();
      return await ensure(signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new Error(`the runner failed to start: ${(err as Error).message}`);
    }
  }

  function query(body: RunnerQuery, opts: { signal: AbortSignal; onLateEnd?: (event: RunEndEvent) => void }): AsyncGenerator<RunnerEvent> {
    return streaming(opts.signal, async () => {
      if (calling) throw new Error(`${calling}: send the prompt once it has ended`);
      const planned: RunnerQuery = options.planMode?.() ? { ...body, permissionMode: "plan" } : body;
      const carried = carrying(planned);
      const withKey = options.credentials ? { ...carried, ...(await options.credentials()) } : carried;
      let runner = await started(opts.signal, queryTurn);
      const send = (to: Live) => queryRun(to.client, withKey, { ...opts, ...(options.userShell && { userShell: true }), onEnded: () => (fresh = { live: to, until: performance.now() + FRESH_MS }) });
      const events = takenOnce(runner, send, resending("query", opts.signal), (to) => (runner = to));
      return { serving: () => runner, events };
    });
  }

  /** A direct tool call carries what a query does besides the session's: the server's runOptions,
   * its plan mode, the credentials (for what the call may ask of a model: a prompt hook's verdict).
   * It is not sent again when its runner did not take it: the caller may call again. */
  async function* invokeTool(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
    // Refused here, not by the runner: a runner found busy is taken for one winding down a cancelled
    // run, and closed after a while (see ensure), which would end the call in flight.
    if (calling) throw new RunnerHttpError(409, calling);
    calling = BUSY_WITH_TOOL_CALL;
    try {
      yield* callTool(body, opts);
    } finally {
      calling = undefined;
    }
  }

  function callTool(body: RunnerToolCall, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
    return streaming(opts.signal, async () => {
      const planned: RunnerToolCall = options.planMode?.() ? { ...body, permissionMode: "plan" } : body;
      const carried = carrying(planned);
      // A path for Claude Code's own minting, which a direct call (the builtin agent's tools) has no use for.
      const { googleCredentialsFile: _file, ...keys } = options.credentials ? await options.credentials() : {};
      const runner = await started(opts.signal);
      const events = runner.client.invokeTool({ ...carried, ...keys }, opts)[Symbol.asyncIterator]() as AsyncGenerator<RunnerEvent>;
      return { serving: () => runner, events };
    });
  }

  /** A probe carries what a direct call does but the credentials (starting servers needs none). It
   * is not sent again when its runner did not take it: the caller may ask again. */
  async function probeMcp(body: RunnerMcpProbe, opts: { signal: AbortSignal }): Promise<RunnerMcpProbeResult> {
    if (stopped) throw new Error("the server is shutting down");
    if (calling) throw new RunnerHttpError(409, calling);
    calling = BUSY_WITH_PROBE;
    try {
      const carried = carrying(body);
      return await busyWith(async () => (await started(opts.signal)).client.probeMcp(carried, opts.signal));
    } finally {
      calling = undefined;
    }
  }

  /** How a request (`what`) that a runner never took is sent again (see not-taken.ts). */
  function resending(what: string, signal: AbortSignal): Resending<Live> {
    return {
      notTaken: (runner, error) => notTaken(runner, error, signal),
      resend: (runner, error) => resend(runner, error, signal, what),
      twice: (first, refused, second, error) => notTakenTwice(first, refused, second, error, what),
    };
  }

  /** Whether `runner` never took a request that failed with `error`: it gave no answer at all, and
   * its process is gone (or going: nobody listens, the connection was cut). */
  function notTaken(runner: Live, error: unknown, signal: AbortSignal): boolean {
    return !signal.aborted && !stopped && unanswered.notTaken(error, !runner.process.alive());
  }

  /** Where to send again a request (`what`) that `runner` never took (`error`): a new runner when
   * its process is gone or does not answer /health, the same one when it answers and is free;
   * undefined when it is busy, as it may have taken the request after all. Throws a NotTakenError
   * when no new runner can start. */
  async function resend(runner: Live, error: unknown, signal: AbortSignal, what: string): Promise<Live | undefined> {
    const why = (error as Error).message;
    let next: Live | undefined;
    try {
      next = await instead(runner, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new NotTakenError(`the ${what} reached no runner: ${refusal(runner, why)}, and a new one failed to start: ${(err as Error).message}`, { cause: err });
    }
    const then = next === undefined ? "it is busy, so it may have taken it: not sent again" : next === runner ? "sending it again" : `sending it to runner ${next.process.pid}`;
    options.log(`runner ${runner.process.pid} did not take the ${what} (${why}); ${then}`, { level: "warn", pid: runner.process.pid, workspace: options.workspace });
    return next;
  }

  /** See resend: the runner to send the request to, undefined for none. */
  async function instead(runner: Live, signal: AbortSignal): Promise<Live | undefined> {
    if (runner.process.alive()) {
      const health = await probe(runner, signal);
      if (health === "free") return runner;
      if (health === "busy") return undefined;
      if (health === "closed") return replace(runner, "workspace");
    }
    return renewed(runner);
  }

  /** A runner in place of `old`: the one already started in its place, if any (by another request
   * of this session), else a new one. */
  async function renewed(old: Live): Promise<Live> {
    if (starting) await starting.catch(() => undefined);
    if (live && live !== old && live.process.alive()) return live;
    return replace(old);
  }

  /** What became of a runner that did not take a request. */
  function refusal(runner: Live, why: string): string {
    const end = runner.process.ended();
    return end ? `the runner process ${end.how}` : `the runner did not take it (${why})`;
  }

  /** The error of a request (`what`) that neither `first` took (`refused`) nor `second` (`error`). */
  async function notTakenTwice(first: Live, refused: unknown, second: Live, error: unknown, what: string): Promise<NotTakenError> {
    const why = (error as Error).message;
    const end = (await exitsWithin(second.process, EXIT_WAIT_MS)) ? second.process.ended() : undefined;
    const then =
      second === first ? `sent again, it was not taken either (${why})`
      : end ? `the one started in its place ${describeEnd(end, " before it took it")}`
      : `the one started in its place did not take it either (${why})`;
    return new NotTakenError(`the ${what} reached no runner: ${refusal(first, (refused as Error).message)}, and ${then}`, { cause: error });
  }

  function attach(requestId: string, afterSeq: number, opts: { signal: AbortSignal; onLateEnd?: (event: RunEndEvent) => void }): AsyncGenerator<RunnerEvent> {
    const fromRunner = attachToRunner(requestId, afterSeq, opts);
    return options.stateDir === undefined ? fromRunner : orKept(fromRunner, options.stateDir, requestId, afterSeq);
  }

  /** The run's events from its runner, or, when the runner gives none (it is gone, or has let go of
   * the run), from the copy a runner keeps of a run that ended while its server was away
   * (@harness/runner runs/finished-runs.ts). */
  async function* orKept(fromRunner: AsyncGenerator<RunnerEvent>, stateDir: string, requestId: string, afterSeq: number): AsyncGenerator<RunnerEvent> {
    let delivered = false;
    try {
      for await (const event of fromRunner) {
        delivered = true;
        yield event;
      }
      return;
    } catch (error) {
      if (delivered) throw error;
      let kept: RunnerEvent[] | undefined;
      try {
        kept = await readFinishedRun(stateDir, requestId, afterSeq);
      } catch (readError) {
        options.log(`${options.workspace}: ${(readError as Error).message}`, { level: "error", workspace: options.workspace });
      }
      if (!kept) throw error;
      options.log(`${options.workspace}: run ${requestId} ended while the server was away; its end is read from the copy its runner kept (${(error as Error).message})`, {
        workspace: options.workspace,
        run: requestId,
      });
      let ended = false;
      try {
        for (const event of kept) {
          if (isRunEnd(event)) ended = true;
          yield event;
        }
      } finally {
        if (ended) await forgetFinishedRun(stateDir, requestId).catch(() => undefined);
      }
    }
  }

  function attachToRunner(requestId: string, afterSeq: number, opts: { signal: AbortSignal; onLateEnd?: (event: RunEndEvent) => void }): AsyncGenerator<RunnerEvent> {
    return streaming(opts.signal, async () => {
      const runner = await current();
      if (!runner) {
        // The stream broke because the runner was found hung and stopped: that is what to say.
        const stalled = stallOf(last);
        if (stalled) throw new Error(stalled);
        const end = last?.ended();
        throw new Error(end ? diedMidRun(end) : "the runner of this session is gone");
      }
      // Found hung, and being stopped: not to be asked again.
      const stalled = stallOf(runner.process);
      if (stalled) throw new Error(stalled);
      return { serving: () => runner, events: attachRun(runner.client, requestId, afterSeq, { ...opts, ...(options.userShell && { userShell: true }) }) };
    });
  }

  async function control(requestId: string, request: RunControl): Promise<RunnerAnswer<undefined>> {
    const runner = await current();
    if (!runner) return { ok: false, status: 404, message: "the runner of this session is not running" };
    return postControl(runner.client, requestId, request);
  }

  /** A rewind that its runner never took (it died before the server heard of it) is sent once
   * more, to the runner `resend` finds, as a query is. */
  function rewind(request: { userMessageId: string; dryRun: boolean }): Promise<RunnerAnswer<RewindResult>> {
    return busyWith(async () => {
      const signal = AbortSignal.timeout(REWIND_TIMEOUT_MS);
      let runner: Live;
      try {
        runner = await ensure(signal);
      } catch (err) {
        return { ok: false, message: `the runner failed to start: ${(err as Error).message}` };
      }
      const to = (target: Live) => postRewind(target.client, request, (error) => notTaken(target, error, signal));
      try {
        return await calledOnce(runner, to, resending("rewind", signal));
      } catch (error) {
        return { ok: false, message: (error as Error).message };
      }
    });
  }

  return {
    query,
    attach,
    control,
    rewind,
    invokeTool,
    probeMcp,
    pid: () => live?.process.pid,
    url: () => live?.url,
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

/** The user and session of a runner's member ("user/session"), for its telemetry. */
function ownerOf(member: string): { userId: string; sessionId: string } {
  const slash = member.indexOf("/");
  return slash > 0 ? { userId: member.slice(0, slash), sessionId: member.slice(slash + 1) } : { userId: member, sessionId: member };
}
