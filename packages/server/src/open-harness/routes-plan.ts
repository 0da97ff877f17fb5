// Planning over the Open Harness API: an execution's plan (the todo list its run keeps, plan.ts),
// whole, as tasks, or streamed as the changes that made it (the run's, and those made over the API:
// routes-plan-write.ts).
import type { Context } from "hono";
import { z } from "zod";
import { check } from "../sessions/api.ts";
import { H, handle, queryOf, type OpenHarness } from "./common.ts";
import type { Execution } from "./executions.ts";
import { planEvents, planHistory, type PlanEvent } from "./plan.ts";
import { executionNamed, LastEventId } from "./routes-executions.ts";
import { streamFollowing } from "./sse.ts";

const TasksQuery = z.object({ status: z.enum(["pending", "in_progress", "completed"]).optional() }).passthrough();

export function planOf(execution: Execution) {
  const last = planHistory(execution.events, execution.watch.detailed(), execution.planEdits).at(-1);
  return { execution_id: execution.id, tasks: last?.tasks ?? [], updated_at: last?.at ?? execution.startedAt };
}

/** The plan's changes after Last-Event-ID (all, without it), then live ones, until the execution
 * ends. Numbered from 1, as they happened. */
function streamPlan(c: Context, execution: Execution, after: number): Response {
  let read = 0;
  let edits = 0;
  let changes: PlanEvent[] = [];
  return streamFollowing(c, execution, after, () => {
    // Only a tool's result or a list set over the API changes the plan: the run's other events are
    // not gone through again.
    let changed = edits < execution.planEdits.length;
    edits = execution.planEdits.length;
    for (; read < execution.events.length; read++) changed ||= execution.events[read].type === "tool_result";
    if (changed) changes = planEvents(execution.events, execution.watch.detailed(), execution.planEdits);
    return changes;
  });
}

export function mountPlanRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.get(
    `${H}/executions/:executionId/plan`,
    handle((c) => c.json({ plan: planOf(executionNamed(oh, c)) })),
  );
  app.get(
    `${H}/executions/:executionId/plan/tasks`,
    handle((c) => {
      const execution = executionNamed(oh, c);
      const { status } = queryOf(c, TasksQuery);
      return c.json({ tasks: planOf(execution).tasks.filter((task) => (status ?? task.status) === task.status) });
    }),
  );
  app.get(
    `${H}/executions/:executionId/plan/stream`,
    handle((c) => {
      const execution = executionNamed(oh, c);
      const last = c.req.header("last-event-id");
      return streamPlan(c, execution, last === undefined ? 0 : check(LastEventId, last, "Last-Event-ID"));
    }),
  );
}
