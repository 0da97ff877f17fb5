// A session's background shells on its runner between runs (GET /shells, POST /shells/kill): asked
// of the runner that serves the session now, never of one started for the asking (no runner, no
// shells). A request that waits for a change counts as the session's activity, so the runner of a
// conversation with a shell running is kept while its session watches (see README: a shell keeps
// its runner while the session is in memory).
import type { RunnerShells } from "@harness/protocol";
import { RunnerHttpError } from "@harness/runner/client";
import type { RunnerAnswer } from "@harness/session";
import type { Live, RunnerLifecycle } from "./lifecycle.ts";

/** How long a kill may take to be answered. */
const KILL_TIMEOUT_MS = 10_000;

export type ShellCalls = {
  shells(after: string | undefined, opts: { signal: AbortSignal }): Promise<RunnerAnswer<RunnerShells>>;
  killShell(shellId: string): Promise<RunnerAnswer<string>>;
};

export function shellCalls(lifecycle: Pick<RunnerLifecycle, "current" | "busyWith">): ShellCalls {
  async function withRunner<T>(call: (client: Live["client"]) => Promise<T>): Promise<RunnerAnswer<T>> {
    const runner = await lifecycle.current();
    if (!runner) return { ok: false, status: 404, message: "the runner of this session is not running" };
    return lifecycle.busyWith(async () => {
      try {
        return { ok: true, value: await call(runner.client) };
      } catch (error) {
        if (error instanceof RunnerHttpError) return { ok: false, status: error.status, message: error.message };
        return { ok: false, message: (error as Error).message };
      }
    });
  }
  return {
    shells: (after, { signal }) => withRunner((client) => client.shells(after, signal)),
    killShell: (shellId) => withRunner((client) => client.killShell(shellId, AbortSignal.timeout(KILL_TIMEOUT_MS))),
  };
}
