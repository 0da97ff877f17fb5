// The runner of one session: a process started on the first query, reused while its /health
// answers, stopped after it has been idle for a while and started again when needed. A runner left
// running by an earlier server (it died mid-run) is adopted, so its run can be re-attached to.
import { mkdirSync } from "node:fs";
import type { RewindResult, RunnerEvent, RunnerQuery } from "@harness/protocol";
import { createRunnerClient, type RunnerClient } from "@harness/runner/client";
import type { RunControl, RunnerAnswer, RunnerPort } from "@harness/session";
import { attachRun, postControl, postRewind, queryRun } from "./runner-link.ts";
import { adoptRunner, spawnRunner, type RunnerProcess, type SpawnRunnerOptions } from "./runner-process.ts";

export type RunnerProcessInfo = { pid: number; url: string };

export type SupervisedRunner = RunnerPort & {
  /** Stops the process, if one runs. */
  stop(): Promise<void>;
  /** The process id of the running runner, if any. */
  pid(): number | undefined;
  /** The base URL of the running runner, if any. */
  url(): string | undefined;
};

export type SupervisorOptions = {
  workspace: string;
  /** The runner's environment, without credentials (they travel per query). */
  env: Record<string, string | undefined>;
  /** Sent with every query as anthropicApiKey. */
  anthropicApiKey?: string;
  idleMs: number;
  log: (line: string) => void;
  /** The runner's output (default: beside the workspace, `<workspace>.runner.log`). */
  logFile?: string;
  /** A runner that finds itself without a server exits after this long (default: idleMs). */
  idleExitMs?: number;
  /** A runner an earlier server left running for this session, to take over. */
  adopt?: RunnerProcessInfo;
  /** Hears each change of the session's runner process (undefined: none runs), to record it. */
  onProcess?: (info: RunnerProcessInfo | undefined) => void;
  /** How long a runner may stay busy with a cancelled run before it is replaced (default 5 s). */
  busyGraceMs?: number;
  spawn?: (options: SpawnRunnerOptions) => Promise<RunnerProcess>;
  mainPath?: string;
};

type Live = { process: RunnerProcess; client: RunnerClient };

const HEALTH_TIMEOUT_MS = 3000;
const REWIND_TIMEOUT_MS = 60_000;

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

export function createSupervisedRunner(options: SupervisorOptions): SupervisedRunner {
  const spawnIt = options.spawn ?? spawnRunner;
  let live: Live | undefined;
  let starting: Promise<Live> | undefined;
  let active = 0;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  function track(started: Live): Live {
    options.onProcess?.(started.process.pid === undefined ? undefined : { pid: started.process.pid, url: started.process.url });
    void started.process.exited.then(() => {
      if (live !== started) return;
      live = undefined;
      options.onProcess?.(undefined);
    });
    return started;
  }

  /** Records that no runner runs, unless another has started meanwhile. */
  function forget(): void {
    if (!live && !starting) options.onProcess?.(undefined);
  }

  // A runner left by an earlier server is taken over only once it answers at its URL as a runner:
  // a pid alone may since belong to some other process.
  let adopting: Promise<void> | undefined;
  if (options.adopt) {
    const info = options.adopt;
    adopting = (async () => {
      const client = createRunnerClient(info.url);
      try {
        await client.health(AbortSignal.timeout(HEALTH_TIMEOUT_MS));
      } catch {
        forget();
        return;
      }
      if (stopped) return;
      live = track({ process: adoptRunner(info), client });
      options.log(`runner ${info.pid} adopted for ${options.workspace}`);
    })();
  }

  async function start(): Promise<Live> {
    mkdirSync(options.workspace, { recursive: true });
    const proc = await spawnIt({
      workspace: options.workspace,
      env: options.env,
      log: options.log,
      mainPath: options.mainPath,
      logFile: options.logFile ?? `${options.workspace.replace(/\/+$/, "")}.runner.log`,
      idleExitMs: options.idleExitMs ?? options.idleMs,
    });
    options.log(`runner ${proc.pid} started for ${options.workspace}`);
    return track({ process: proc, client: createRunnerClient(proc.url) });
  }

  async function replace(old: Live | undefined): Promise<Live> {
    if (old) {
      if (live === old) live = undefined;
      await old.process.stop();
    }
    starting ??= start().finally(() => (starting = undefined));
    live = await starting;
    return live;
  }

  /** The runner that runs now, without starting one. */
  async function current(): Promise<Live | undefined> {
    await adopting;
    if (starting) await starting.catch(() => undefined);
    return live?.process.alive() ? live : undefined;
  }

  /** A runner that answers /health and is free, starting or replacing one as needed. */
  async function ensure(signal: AbortSignal): Promise<Live> {
    await adopting;
    if (starting) await starting.catch(() => undefined);
    const running = live;
    if (!running || !running.process.alive()) return replace(running);
    const deadline = Date.now() + (options.busyGraceMs ?? 5000);
    for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
      let health;
      try {
        health = await running.client.health(AbortSignal.any([signal, AbortSignal.timeout(HEALTH_TIMEOUT_MS)]));
      } catch (err) {
        if (signal.aborted) throw err;
        options.log(`runner ${running.process.pid} does not answer /health (${(err as Error).message}); restarting it`);
        return replace(running);
      }
      if (health.ok && !health.busy) return running;
      if (!health.ok || Date.now() > deadline) {
        options.log(`runner ${running.process.pid} is ${health.ok ? "still busy" : "not ok"}; restarting it`);
        return replace(running);
      }
      // Still winding down a cancelled run.
      await abortable(wait, signal);
    }
  }

  function scheduleIdleStop(): void {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      const running = live;
      if (active > 0 || !running) return;
      live = undefined;
      options.log(`runner ${running.process.pid} idle for ${options.idleMs} ms; stopping it`);
      void running.process.stop().then(forget);
    }, options.idleMs);
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

  async function* streaming(open: () => Promise<AsyncGenerator<RunnerEvent>>): AsyncGenerator<RunnerEvent> {
    if (stopped) throw new Error("the server is shutting down");
    active++;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
    try {
      yield* await open();
    } finally {
      active--;
      if (active === 0 && !stopped) scheduleIdleStop();
    }
  }

  function query(body: RunnerQuery, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
    return streaming(async () => {
      let runner: Live;
      try {
        runner = await ensure(opts.signal);
      } catch (err) {
        if (opts.signal.aborted) throw err;
        throw new Error(`the runner failed to start: ${(err as Error).message}`);
      }
      const withKey = options.anthropicApiKey ? { ...body, anthropicApiKey: options.anthropicApiKey } : body;
      return queryRun(runner.client, withKey, opts);
    });
  }

  function attach(requestId: string, afterSeq: number, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
    return streaming(async () => {
      const runner = await current();
      if (!runner) throw new Error("the runner of this session is gone");
      return attachRun(runner.client, requestId, afterSeq, opts);
    });
  }

  async function control(requestId: string, request: RunControl): Promise<RunnerAnswer<undefined>> {
    const runner = await current();
    if (!runner) return { ok: false, status: 404, message: "the runner of this session is not running" };
    return postControl(runner.client, requestId, request);
  }

  function rewind(request: { userMessageId: string; dryRun: boolean }): Promise<RunnerAnswer<RewindResult>> {
    return busyWith(async () => {
      let runner: Live;
      try {
        runner = await ensure(AbortSignal.timeout(REWIND_TIMEOUT_MS));
      } catch (err) {
        return { ok: false, message: `the runner failed to start: ${(err as Error).message}` };
      }
      return postRewind(runner.client, request);
    });
  }

  return {
    query,
    attach,
    control,
    rewind,
    pid: () => live?.process.pid,
    url: () => live?.process.url,
    async stop() {
      stopped = true;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = undefined;
      await adopting;
      const pending = starting?.catch(() => undefined);
      const running = live ?? (await pending);
      live = undefined;
      if (running) {
        await running.process.stop();
        forget();
      }
    },
  };
}
