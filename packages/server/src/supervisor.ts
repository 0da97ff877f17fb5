// The runner of one session: a process started on the first query, reused while its /health
// answers, stopped after it has been idle for a while and started again when needed.
import { mkdirSync } from "node:fs";
import type { RunnerEvent, RunnerQuery } from "@harness/protocol";
import { createRunnerClient, type RunnerClient } from "@harness/runner/client";
import type { RunnerPort } from "@harness/session";
import { spawnRunner, type RunnerProcess, type SpawnRunnerOptions } from "./runner-process.ts";

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
  /** How long a runner may stay busy with a cancelled run before it is replaced (default 5 s). */
  busyGraceMs?: number;
  spawn?: (options: SpawnRunnerOptions) => Promise<RunnerProcess>;
  mainPath?: string;
};

type Live = { process: RunnerProcess; client: RunnerClient };

const HEALTH_TIMEOUT_MS = 3000;

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

  async function start(): Promise<Live> {
    mkdirSync(options.workspace, { recursive: true });
    const proc = await spawnIt({ workspace: options.workspace, env: options.env, log: options.log, mainPath: options.mainPath });
    options.log(`runner ${proc.pid} started for ${options.workspace}`);
    const started: Live = { process: proc, client: createRunnerClient(proc.url) };
    void proc.exited.then(() => {
      if (live === started) live = undefined;
    });
    return started;
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

  /** A runner that answers /health and is free, starting or replacing one as needed. */
  async function ensure(signal: AbortSignal): Promise<Live> {
    if (starting) await starting.catch(() => undefined);
    const current = live;
    if (!current || !current.process.alive()) return replace(current);
    const deadline = Date.now() + (options.busyGraceMs ?? 5000);
    for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
      let health;
      try {
        health = await current.client.health(AbortSignal.any([signal, AbortSignal.timeout(HEALTH_TIMEOUT_MS)]));
      } catch (err) {
        if (signal.aborted) throw err;
        options.log(`runner ${current.process.pid} does not answer /health (${(err as Error).message}); restarting it`);
        return replace(current);
      }
      if (health.ok && !health.busy) return current;
      if (!health.ok || Date.now() > deadline) {
        options.log(`runner ${current.process.pid} is ${health.ok ? "still busy" : "not ok"}; restarting it`);
        return replace(current);
      }
      // Still winding down a cancelled run.
      await abortable(wait, signal);
    }
  }

  function scheduleIdleStop(): void {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleTimer = undefined;
      const current = live;
      if (active > 0 || !current) return;
      live = undefined;
      options.log(`runner ${current.process.pid} idle for ${options.idleMs} ms; stopping it`);
      void current.process.stop();
    }, options.idleMs);
    idleTimer.unref();
  }

  async function* query(body: RunnerQuery, opts: { signal: AbortSignal }): AsyncGenerator<RunnerEvent> {
    if (stopped) throw new Error("the server is shutting down");
    active++;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = undefined;
    try {
      let runner: Live;
      try {
        runner = await ensure(opts.signal);
      } catch (err) {
        if (opts.signal.aborted) throw err;
        throw new Error(`the runner failed to start: ${(err as Error).message}`);
      }
      const withKey = options.anthropicApiKey ? { ...body, anthropicApiKey: options.anthropicApiKey } : body;
      yield* runner.client.query(withKey, opts);
    } finally {
      active--;
      if (active === 0 && !stopped) scheduleIdleStop();
    }
  }

  return {
    query,
    pid: () => live?.process.pid,
    url: () => live?.process.url,
    async stop() {
      stopped = true;
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = undefined;
      const pending = starting?.catch(() => undefined);
      const current = live ?? (await pending);
      live = undefined;
      if (current) await current.process.stop();
    },
  };
}
