// The event streams of a session's requests to its runner (queries, re-attachments to runs, direct
// tool calls): each counts as activity while it lasts, is watched for a runner that stops answering
// (which is then stopped), and, when it breaks because its runner died or hung, ends with an error
// that says so, in the same words for every session that runner served.
import type { RunnerEvent } from "@harness/protocol";
import { RunnerHttpError } from "@harness/runner/client";
import { askHealth, diedMidRun, EXIT_WAIT_MS, exitsWithin } from "./health.ts";
import type { Live, RunnerLifecycle } from "./lifecycle.ts";
import { NotTakenError } from "./not-taken.ts";
import type { RunnerProcess } from "./process.ts";
import type { SupervisorOptions } from "./supervisor.ts";

/** What a request opened: its events, and the runner streaming them now (`serving`, which changes
 * when a query goes to another runner, see takenOnce). */
export type OpenedStream = { serving: () => Live; events: AsyncGenerator<RunnerEvent> };

export type RunStreams = {
  /** The events of what `open` opens. Refused once the session has stopped. */
  stream(signal: AbortSignal, open: () => Promise<OpenedStream>): AsyncGenerator<RunnerEvent>;
  /** What to say of `process` if it is the one this session's streams found no longer answering. */
  stalled(process: RunnerProcess | undefined): string | undefined;
};

const STALL_MS = 30_000;

export function runStreams(lifecycle: Pick<RunnerLifecycle, "stopped" | "enter" | "leave">, options: Pick<SupervisorOptions, "workspace" | "log" | "stallMs">): RunStreams {
  /** The process this session's runs found no longer answering, and what to say of it. */
  let stall: { process: RunnerProcess; message: string } | undefined;
  const stalled = (process: RunnerProcess | undefined) => (process && stall?.process === process ? stall.message : undefined);

  async function* stream(signal: AbortSignal, open: () => Promise<OpenedStream>): AsyncGenerator<RunnerEvent> {
    if (lifecycle.stopped()) throw new Error("the server is shutting down");
    lifecycle.enter();
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
      const hung = stalled(opened.serving().process);
      if (hung) throw new Error(hung);
    } catch (error) {
      if (error instanceof NotTakenError) throw error;
      const runner = serving?.();
      // This stream's watcher, or another's of this session, found the runner hung and stopped it.
      const hung = stalled(runner?.process);
      if (hung) throw new Error(hung, { cause: error });
      if (!runner || signal.aborted || lifecycle.stopped() || error instanceof RunnerHttpError) throw error;
      if (await exitsWithin(runner.process, EXIT_WAIT_MS)) throw new Error(diedMidRun(runner.process.ended() ?? { how: "exited" }), { cause: error });
      throw error;
    } finally {
      clearInterval(watch);
      lifecycle.leave();
    }
  }

  return { stream, stalled };
}
