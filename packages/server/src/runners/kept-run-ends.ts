// Re-attaching to a run whose runner is gone: a runner keeps a copy of the end of a run that ended
// while its server was away (@harness/runner runs/finished-runs.ts); when the runner gives none of
// the run's events, that copy gives them, and is forgotten once its end has been delivered.
import { isRunEnd, type RunnerEvent } from "@harness/protocol";
import { forgetFinishedRun, readFinishedRun } from "@harness/runner/finished-runs";
import type { SupervisorOptions } from "./supervisor.ts";

/** The run's events `fromRunner`, or, when the runner gives none (it is gone, or has let go of the
 * run), those after `afterSeq` of the copy kept in `stateDir`; without a copy, the runner's error. */
export async function* orKeptEnd(
  fromRunner: AsyncGenerator<RunnerEvent>,
  stateDir: string,
  requestId: string,
  afterSeq: number,
  options: Pick<SupervisorOptions, "workspace" | "log">,
): AsyncGenerator<RunnerEvent> {
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
