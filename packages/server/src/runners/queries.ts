// A session's runs on its runner: a query (sent again to another runner when its runner never took
// it), re-attaching to a run in flight (or to the end a gone runner kept of it), a run's controls,
// and rewinding the workspace to a user message.
import type { RewindResult, RunEndEvent, RunnerEvent, RunnerQuery } from "@harness/protocol";
import { createTurnGate } from "@harness/runner/turn-gate";
import type { RunControl, RunnerAnswer } from "@harness/session";
import { carrying, type CarriedOptions } from "./carried.ts";
import { diedMidRun } from "./health.ts";
import { orKeptEnd } from "./kept-run-ends.ts";
import type { Live, RunnerLifecycle } from "./lifecycle.ts";
import { attachRun, postControl, postRewind, queryRun } from "./link.ts";
import { calledOnce, takenOnce } from "./not-taken.ts";
import type { Resender } from "./resending.ts";
import type { RunStreams } from "./run-streams.ts";
import type { SupervisorOptions } from "./supervisor.ts";

type RunOpts = { signal: AbortSignal; onLateEnd?: (event: RunEndEvent) => void };

export type Queries = {
  query(body: RunnerQuery, opts: RunOpts): AsyncGenerator<RunnerEvent>;
  attach(requestId: string, afterSeq: number, opts: RunOpts): AsyncGenerator<RunnerEvent>;
  control(requestId: string, request: RunControl): Promise<RunnerAnswer<undefined>>;
  rewind(request: { userMessageId: string; dryRun: boolean }): Promise<RunnerAnswer<RewindResult>>;
};

export type QueriesOptions = CarriedOptions & Pick<SupervisorOptions, "workspace" | "log" | "stateDir" | "planMode" | "credentials" | "userShell" | "registeredTools">;

const REWIND_TIMEOUT_MS = 60_000;
/** Queries leave one per event-loop turn: a hundred prompts submitted at once do not hold up the
 * events of the runs already streaming while their requests are made. */
const queryTurn = createTurnGate();

export function queries(
  lifecycle: Pick<RunnerLifecycle, "started" | "ensure" | "current" | "last" | "vouch" | "busyWith">,
  streams: RunStreams,
  resender: Resender,
  /** What is in flight directly (see DirectCalls.calling): a query is refused meanwhile. */
  calling: () => string | undefined,
  options: QueriesOptions,
): Queries {
  function query(body: RunnerQuery, opts: RunOpts): AsyncGenerator<RunnerEvent> {
    return streams.stream(opts.signal, async () => {
      const busy = calling();
      if (busy) throw new Error(`${busy}: send the prompt once it has ended`);
      const planned: RunnerQuery = options.planMode?.() ? { ...body, permissionMode: "plan" } : body;
      const registered = options.registeredTools?.() ?? [];
      const carried = { ...carrying(planned, options), ...(registered.length > 0 && { registeredTools: [...registered] }) };
      const withKey = options.credentials ? { ...carried, ...(await options.credentials()) } : carried;
      let runner = await lifecycle.started(opts.signal, queryTurn);
      const send = (to: Live) => queryRun(to.client, withKey, { ...opts, ...(options.userShell && { userShell: true }), onEnded: () => lifecycle.vouch(to) });
      const events = takenOnce(runner, send, resender.resending("query", opts.signal), (to) => (runner = to));
      return { serving: () => runner, events };
    });
  }

  function attach(requestId: string, afterSeq: number, opts: RunOpts): AsyncGenerator<RunnerEvent> {
    const fromRunner = attachToRunner(requestId, afterSeq, opts);
    return options.stateDir === undefined ? fromRunner : orKeptEnd(fromRunner, options.stateDir, requestId, afterSeq, options);
  }

  function attachToRunner(requestId: string, afterSeq: number, opts: RunOpts): AsyncGenerator<RunnerEvent> {
    return streams.stream(opts.signal, async () => {
      const runner = await lifecycle.current();
      if (!runner) {
        const last = lifecycle.last();
        // The stream broke because the runner was found hung and stopped: that is what to say.
        const stalled = streams.stalled(last);
        if (stalled) throw new Error(stalled);
        const end = last?.ended();
        throw new Error(end ? diedMidRun(end) : "the runner of this session is gone");
      }
      // Found hung, and being stopped: not to be asked again.
      const stalled = streams.stalled(runner.process);
      if (stalled) throw new Error(stalled);
      return { serving: () => runner, events: attachRun(runner.client, requestId, afterSeq, { ...opts, ...(options.userShell && { userShell: true }) }) };
    });
  }

  async function control(requestId: string, request: RunControl): Promise<RunnerAnswer<undefined>> {
    const runner = await lifecycle.current();
    if (!runner) return { ok: false, status: 404, message: "the runner of this session is not running" };
    return postControl(runner.client, requestId, request);
  }

  /** A rewind that its runner never took (it died before the server heard of it) is sent once
   * more, to the runner the resender finds, as a query is. */
  function rewind(request: { userMessageId: string; dryRun: boolean }): Promise<RunnerAnswer<RewindResult>> {
    return lifecycle.busyWith(async () => {
      const signal = AbortSignal.timeout(REWIND_TIMEOUT_MS);
      let runner: Live;
      try {
        runner = await lifecycle.ensure(signal);
      } catch (err) {
        return { ok: false, message: `the runner failed to start: ${(err as Error).message}` };
      }
      const to = (target: Live) => postRewind(target.client, request, (error) => resender.notTaken(target, error, signal));
      try {
        return await calledOnce(runner, to, resender.resending("rewind", signal));
      } catch (error) {
        return { ok: false, message: (error as Error).message };
      }
    });
  }

  return { query, attach, control, rewind };
}
