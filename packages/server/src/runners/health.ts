// How a runner process is, as the supervisor asks it: its workspace's /health (given a few seconds to
// answer), whether its process has exited, and how to say it died under a run. Pure of any session
// state: each takes the client or process it checks.
import type { RunnerHealth } from "@harness/protocol";
import { RunnerHttpError, type RunnerClient } from "@harness/runner/client";
import { describeEnd, type ProcessEnd, type RunnerProcess } from "./process.ts";

/** How long a runner is given to answer /health, or a workspace's closing. */
export const HEALTH_TIMEOUT_MS = 3000;
/** How long a broken run stream waits for its runner's exit to be noticed, to say the runner died:
 * the connection closes before the process's exit is reported. */
export const EXIT_WAIT_MS = 1000;

/** Resolves after `ms`, or rejects with `signal`'s reason once it aborts. */
export function abortable(ms: number, signal: AbortSignal): Promise<void> {
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
export async function exitsWithin(proc: RunnerProcess, ms: number): Promise<boolean> {
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
export function askHealth(client: RunnerClient, signal?: AbortSignal): Promise<RunnerHealth> {
  return client.health(signal ? AbortSignal.any([signal, AbortSignal.timeout(HEALTH_TIMEOUT_MS)]) : AbortSignal.timeout(HEALTH_TIMEOUT_MS));
}

/** What a runner's /health says of it: free or busy; "closed" when the process answers but no longer
 * has the workspace open (it was closed meanwhile); else what is wrong with it, in words. */
export type Probe = "free" | "busy" | "closed" | { wrong: string };

/** Asks the workspace `client` speaks to how it is (see Probe); throws only when `signal` aborts. */
export async function probe(client: RunnerClient, signal: AbortSignal): Promise<Probe> {
  let health: RunnerHealth;
  try {
    health = await askHealth(client, signal);
  } catch (err) {
    if (signal.aborted) throw err;
    if (err instanceof RunnerHttpError && err.status === 404) return "closed";
    return { wrong: `does not answer /health (${(err as Error).message})` };
  }
  if (!health.ok) return { wrong: "is not ok" };
  return health.busy ? "busy" : "free";
}

/** Why a run failed whose runner process ended. */
export function diedMidRun(end: ProcessEnd): string {
  return `the runner process ${describeEnd(end, " during the run")}`;
}
