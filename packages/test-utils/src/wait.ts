// Waiting in tests: polling for a condition, asking whether a process still exists, ending one.
import { readFileSync } from "node:fs";

export type WaitOptions = {
  /** Give up after this long (default 15 s). */
  timeoutMs?: number;
  /** Poll this often (default 20 ms). */
  intervalMs?: number;
};

/** Polls `check` until it returns something other than undefined or false, and resolves with that;
 * throws "timed out waiting for <what>" once the timeout has passed. */
export async function waitFor<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  options: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}

/** Retries `check`, an assertion that throws while what it asserts does not hold yet (a screen
 * still being drawn), until it passes; once the timeout has passed, throws its last error. */
export async function eventually(check: () => void | Promise<void>, options: WaitOptions = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}

/** Whether a process with this id runs. A zombie (ended, not yet reaped by its parent) does not,
 * as the server's own check has it: a process that ended has stopped, whoever reaps it. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return true;
  }
}

/** Kills the process `pid` (SIGKILL), if it is still there: for a test's clean-up, where a process
 * that has ended already is no failure. */
export function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}
