// The runs a runner knows: the one in flight and, for a while after they end, the last few, so that
// a session that lost its stream can still re-attach and read the tail.
import type { AgentEvent } from "@harness/protocol";
import { createEventLog, type EventLog, type EventLogLimits } from "./event-log.ts";
import { createBackgrounds, type Backgrounds } from "./backgrounds.ts";
import { createAgentStops, createApprovals, createConfigureHub, createShellKills, createSteerQueue, createTodoSets, type AgentStops, type Approvals, type ConfigureHub, type ShellKills, type SteerQueue, type TodoSets } from "./controls.ts";

export type Run = {
  readonly requestId: string;
  readonly controller: AbortController;
  readonly log: EventLog;
  readonly approvals: Approvals;
  readonly steering: SteerQueue;
  readonly configure: ConfigureHub;
  readonly agentStops: AgentStops;
  readonly todoSets: TodoSets;
  readonly backgrounds: Backgrounds;
  readonly shellKills: ShellKills;
  /** Passes an event of the run from outside its backend (an approval's request and answer, a
   * notice of a control) on where the backend's events go, in order with them. */
  event(event: AgentEvent): void;
  /** Where event() sends from now on: the query's execution sends them through the reports of
   * changed files, which hold the events after a report back until it is made. Until then, and
   * once the run has finished, they go straight to the log (while it takes them). */
  routeEvents(to: ((event: AgentEvent) => void) | undefined): void;
  /** Resolves once the run has ended (its last event is in the log). */
  readonly settled: Promise<void>;
  /** Set once the run has ended. */
  endedAt?: number;
};

export type RunRetention = {
  /** How long an ended run stays known. */
  keepMs: number;
  /** At most this many ended runs are kept (the newest). */
  keepRuns: number;
};

export const DEFAULT_RUN_RETENTION: RunRetention = { keepMs: 10 * 60_000, keepRuns: 3 };

export type RunRegistry = {
  /** Starts a run record, under `requestId` when given (the caller checks that no run has it); its
   * log is empty until the caller appends run.started. */
  create(requestId?: string): Run;
  /** Marks the run ended: ends its log and settles it. */
  finish(run: Run): void;
  get(requestId: string): Run | undefined;
  /** The run in flight, if any. */
  current(): Run | undefined;
};

export function createRunRegistry(options: { retention?: RunRetention; limits?: EventLogLimits; now?: () => number } = {}): RunRegistry {
  const retention = options.retention ?? DEFAULT_RUN_RETENTION;
  const now = options.now ?? Date.now;
  const runs = new Map<string, Run>();
  const settles = new WeakMap<Run, () => void>();
  let inFlight: Run | undefined;

  function prune(): void {
    const ended = [...runs.values()].filter((r) => r.endedAt !== undefined);
    const cutoff = now() - retention.keepMs;
    ended.forEach((run, i) => {
      if (run.endedAt! < cutoff || i < ended.length - retention.keepRuns) runs.delete(run.requestId);
    });
  }

  return {
    create(requestId) {
      prune();
      const controller = new AbortController();
      const log = createEventLog(options.limits);
      let settle!: () => void;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      const toLog = (event: AgentEvent) => {
        if (!log.ended) log.append(event);
      };
      let route = toLog;
      const approvals = createApprovals((event) => route(event), controller.signal);
      const run: Run = {
        requestId: requestId ?? crypto.randomUUID(),
        controller,
        log,
        approvals,
        steering: createSteerQueue(),
        configure: createConfigureHub(),
        agentStops: createAgentStops(),
        todoSets: createTodoSets(),
        backgrounds: createBackgrounds(() => approvals.pending()),
        shellKills: createShellKills(),
        event: (event) => route(event),
        routeEvents: (to) => (route = to ?? toLog),
        settled,
      };
      settles.set(run, settle);
      runs.set(run.requestId, run);
      inFlight = run;
      return run;
    },
    finish(run) {
      if (run.endedAt !== undefined) return;
      run.endedAt = now();
      run.log.end();
      if (inFlight === run) inFlight = undefined;
      settles.get(run)?.();
      prune();
    },
    get(requestId) {
      const run = runs.get(requestId);
      if (run?.endedAt !== undefined && run.endedAt < now() - retention.keepMs) {
        runs.delete(requestId);
        return undefined;
      }
      return run;
    },
    current: () => inFlight,
  };
}
