// The runner process of each session, recorded in the store so that a server started after this
// one adopts it instead of leaving it to run on unknown. A record the store refuses while another
// process holds its lock is tried again every second, until it is stored or a newer one replaces it.
import { sessionKey } from "../ids.ts";
import type { RunnerProcessInfo } from "./process.ts";
import type { SessionCatalog } from "../sqlite/catalog.ts";
import { DatabaseLockedError } from "../sqlite/locked.ts";
import type { ServerLog } from "../log/writer.ts";

export type RunnerRecords = {
  record(userId: string, sessionId: string, runner: RunnerProcessInfo | undefined): void;
  /** Gives up the records still waiting (the store is being closed). */
  stop(): void;
};

export function runnerRecords(catalog: SessionCatalog, log: ServerLog, retryMs = 1000): RunnerRecords {
  const waiting = new Map<string, NodeJS.Timeout>();
  let stopped = false;

  function record(userId: string, sessionId: string, runner: RunnerProcessInfo | undefined, again = false): void {
    const key = sessionKey(userId, sessionId);
    clearTimeout(waiting.get(key));
    waiting.delete(key);
    if (stopped) return;
    try {
      catalog.setRunner(userId, sessionId, runner);
      if (again) log(`the runner of ${userId}/${sessionId} is recorded now`, { user: userId, session: sessionId });
    } catch (error) {
      // Said once, not at every try.
      if (!again) log(`cannot record the runner of ${userId}/${sessionId}: ${(error as Error).message}`, { level: "error", user: userId, session: sessionId });
      if (!(error instanceof DatabaseLockedError)) return;
      const timer = setTimeout(() => record(userId, sessionId, runner, true), retryMs);
      timer.unref();
      waiting.set(key, timer);
    }
  }

  return {
    record: (userId, sessionId, runner) => record(userId, sessionId, runner),
    stop() {
      stopped = true;
      for (const timer of waiting.values()) clearTimeout(timer);
      waiting.clear();
    },
  };
}
