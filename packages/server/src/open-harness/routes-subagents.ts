// Sub-agents over the Open Harness API, read and stopped: those a session's executions' runs
// started (each Task call one) and those spawned over the API (routes-subagents-delegate.ts). The
// answers:
//   list       200 { subagents } the oldest first
//   get        200 { subagent } with its tool_calls (the calls its sub-agent made)
//   result     200 { result } the spec's ExecutionResult (409 while it runs, or before a task)
//   stream     SSE of its ExecutionEvents while it runs, ended with done once it has ended
//   terminate  204 once it has stopped: a running one stops, its run (if a run started it) going on,
//              its result cancelled; a spawned one not running is removed; one a run started is
//              409 once it has ended, or while its Task call waits for approval (nothing runs yet)
import { check } from "../sessions/api.ts";
import { ApiError } from "./errors.ts";
import { H, handle, type OpenHarness } from "./common.ts";
import { LastEventId } from "./routes-executions.ts";
import { spawnedResult, spawnedShape } from "./spawned-subagents.ts";
import { streamFollowed, type Followed } from "./sse.ts";
import { nestedCalls, resultOfCall, subagentEvents, subagentOfCall, subagentsOfRun } from "./subagent-calls.ts";
import { findSubagent, runsOf, subagentScope, type FoundSubagent } from "./subagent-lookup.ts";
import type { ExecutionEvent } from "./run-watch.ts";
import type { Execution } from "./executions.ts";

const P = `${H}/agents/:agentId/subagents`;

function shapeOf(found: FoundSubagent) {
  if (found.kind === "spawned") return { ...spawnedShape(found.spawned), tool_calls: found.spawned.delegation?.toolCalls() ?? [] };
  return { ...subagentOfCall(found.call, found.execution.id, found.execution.sessionId), tool_calls: nestedCalls(found.calls, found.call.id) };
}

const running = (status: string) => status === "running";

/** The events of the sub-agent of Task call `id`, read from its execution's as they come. */
function runFeed(execution: Execution, id: string): Followed {
  const items: ExecutionEvent[] = [];
  let next = 0;
  let ended = false;
  return {
    listeners: execution.listeners,
    items() {
      if (ended) return items;
      const read = subagentEvents(execution.events, next, execution.watch.detailed(), id);
      items.push(...read.events);
      next = read.next;
      ended = read.ended;
      return items;
    },
    ended: () => ended || execution.watch.finished,
  };
}

/** How long terminate waits for a run's sub-agent to stop. */
const STOP_WAIT_MS = 10_000;

/** Stops the sub-agent of the run's Task call `id`, the run going on; answers once its call has
 * ended (its result: interrupted), or throws why it did not. */
async function stopRunSubagent(execution: Execution, id: string): Promise<void> {
  const operation = "subagents.terminate";
  const stillRunning = () => execution.watch.detailed().find((call) => call.id === id)?.status === "running";
  const timeout = AbortSignal.timeout(STOP_WAIT_MS);
  let wake: (() => void) | undefined;
  const listener = () => wake?.();
  execution.listeners.add(listener);
  timeout.addEventListener("abort", listener);
  try {
    execution.stopAgent(id);
    while (stillRunning() && !execution.watch.finished && execution.stopRefused === undefined && !timeout.aborted) {
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    execution.listeners.delete(listener);
    timeout.removeEventListener("abort", listener);
  }
  if (execution.stopRefused !== undefined && stillRunning()) throw new ApiError(502, "runner_error", `the sub-agent was not stopped: ${execution.stopRefused}`, operation);
  if (timeout.aborted && stillRunning()) throw new ApiError(504, "timeout", `the sub-agent did not stop within ${STOP_WAIT_MS / 1000} s`, operation);
}

export function mountSubagentRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    P,
    handle(async (c) => {
      const scope = await subagentScope(oh, c);
      const fromRuns = runsOf(oh, scope).flatMap(({ execution }) => subagentsOfRun(execution.watch, execution.id, execution.sessionId));
      const spawned = oh.subagents.list(scope.userId, scope.sessionId).map(spawnedShape);
      const all = [...fromRuns, ...spawned].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
      return c.json({ subagents: all });
    }),
  );
  app.get(
    `${P}/:subagentId`,
    handle(async (c) => c.json({ subagent: shapeOf(findSubagent(oh, c, await subagentScope(oh, c))) })),
  );
  app.get(
    `${P}/:subagentId/result`,
    handle(async (c) => {
      const found = findSubagent(oh, c, await subagentScope(oh, c));
      const shape = shapeOf(found);
      if (shape.status === "idle") throw new ApiError(409, "subagent_idle", `sub-agent "${shape.id}" has been given no task: delegate one`, "subagents.result");
      if (running(shape.status)) throw new ApiError(409, "subagent_running", `sub-agent "${shape.id}" is still running: its result comes when it ends`, "subagents.result");
      const result = found.kind === "spawned" ? spawnedResult(found.spawned, found.spawned.delegation!) : resultOfCall(found.call, nestedCalls(found.calls, found.call.id), found.execution.id);
      return c.json({ result });
    }),
  );
  app.get(
    `${P}/:subagentId/stream`,
    handle(async (c) => {
      const found = findSubagent(oh, c, await subagentScope(oh, c));
      const last = c.req.header("last-event-id");
      const after = last === undefined ? 0 : check(LastEventId, last, "Last-Event-ID");
      if (found.kind === "run") return streamFollowed(c, runFeed(found.execution, found.call.id), after);
      const { delegation } = found.spawned;
      if (!delegation) throw new ApiError(409, "subagent_idle", `sub-agent "${found.spawned.id}" has been given no task: delegate one`, "subagents.attachStream");
      return streamFollowed(c, { listeners: delegation.listeners, items: () => delegation.events, ended: () => delegation.finished }, after);
    }),
  );
  app.delete(
    `${P}/:subagentId`,
    handle(async (c) => {
      const found = findSubagent(oh, c, await subagentScope(oh, c));
      if (found.kind === "spawned") {
        const { delegation } = found.spawned;
        if (delegation && !delegation.finished) {
          delegation.stop();
          await delegation.ended;
        } else await oh.subagents.remove(found.spawned);
        return c.body(null, 204);
      }
      const { status } = subagentOfCall(found.call, found.execution.id, found.execution.sessionId);
      if (!running(status)) throw new ApiError(409, "subagent_finished", `sub-agent "${found.call.id}" has already ended (${status})`, "subagents.terminate");
      if (found.call.status === "pending") {
        const how = `deny the call to stop it (POST …/executions/${found.execution.id}/input with "no")`;
        throw new ApiError(409, "subagent_not_started", `sub-agent "${found.call.id}" has not started: its Task call waits for approval; ${how}`, "subagents.terminate");
      }
      await stopRunSubagent(found.execution, found.call.id);
      return c.body(null, 204);
    }),
  );
}
