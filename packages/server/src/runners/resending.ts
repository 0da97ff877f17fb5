// Where the session sends again a request its runner never took (see not-taken.ts for which those
// are): to the same runner when it answers /health and is free, to a new one when its process is
// gone or does not answer, nowhere when it is busy (it may have taken the request after all); and
// the error, in words, of a request that no runner took.
import { EXIT_WAIT_MS, exitsWithin, probe } from "./health.ts";
import type { Live, RunnerLifecycle } from "./lifecycle.ts";
import { NotTakenError, type Resending, type UnansweredRequests } from "./not-taken.ts";
import { describeEnd } from "./process.ts";
import type { SupervisorOptions } from "./supervisor.ts";

export type Resender = {
  /** How a request (`what`) that a runner never took is sent again (see not-taken.ts). */
  resending(what: string, signal: AbortSignal): Resending<Live>;
  /** Whether `runner` never took a request that failed with `error`: it gave no answer at all, and
   * its process is gone (or going: nobody listens, the connection was cut). */
  notTaken(runner: Live, error: unknown, signal: AbortSignal): boolean;
};

export function resender(
  lifecycle: Pick<RunnerLifecycle, "stopped" | "replace" | "renewed">,
  unanswered: Pick<UnansweredRequests, "notTaken">,
  options: Pick<SupervisorOptions, "workspace" | "log">,
): Resender {
  function resending(what: string, signal: AbortSignal): Resending<Live> {
    return {
      notTaken: (runner, error) => notTaken(runner, error, signal),
      resend: (runner, error) => resend(runner, error, signal, what),
      twice: (first, refused, second, error) => notTakenTwice(first, refused, second, error, what),
    };
  }

  function notTaken(runner: Live, error: unknown, signal: AbortSignal): boolean {
    return !signal.aborted && !lifecycle.stopped() && unanswered.notTaken(error, !runner.process.alive());
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
      const health = await probe(runner.client, signal);
      if (health === "free") return runner;
      if (health === "busy") return undefined;
      if (health === "closed") return lifecycle.replace(runner, "workspace");
    }
    return lifecycle.renewed(runner);
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

  return { resending, notTaken };
}

/** What became of a runner that did not take a request. */
function refusal(runner: Live, why: string): string {
  const end = runner.process.ended();
  return end ? `the runner process ${end.how}` : `the runner did not take it (${why})`;
}
