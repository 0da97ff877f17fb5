// Changing an execution's plan over the Open Harness API: the todo list its run keeps becomes the one
// given (planning.update) or the one with a task changed (planning.updateTask), while the run is
// under way; the model reads the new list with its next request. Once the run has ended the plan is
// the run's, as it left it (409). A run of a backend that keeps its own list (Claude Code) takes no
// change (501).
import type { Context } from "hono";
import { MAX_TODO_CHARS, MAX_TODOS } from "@harness/protocol";
import { z } from "zod";
import { bodyOf, check } from "../sessions/api.ts";
import { H, handle, type OpenHarness } from "./common.ts";
import { ApiError } from "./errors.ts";
import type { Execution } from "./executions.ts";
import { planHistory, type PlanList, type Todo } from "./plan.ts";
import { planOf } from "./routes-plan.ts";
import { executionNamed } from "./routes-executions.ts";

const Status = z.enum(["pending", "in_progress", "completed"]);
const Content = z.string().trim().min(1, "must not be empty").max(MAX_TODO_CHARS, `must be at most ${MAX_TODO_CHARS} characters`);
const TaskIn = z.strictObject({
  /** A task of the plan as it is (its place): its text shown while in progress is kept. */
  id: z.string().max(100, "must be at most 100 characters").optional(),
  content: Content,
  status: Status,
  order: z.number().int("must be an integer").min(1, "must be at least 1").optional(),
});
const UpdatePlanBody = z.strictObject({ tasks: z.array(TaskIn).max(MAX_TODOS, `must hold at most ${MAX_TODOS} tasks`).optional() });
const UpdateTaskBody = z.strictObject({ content: Content.optional(), status: Status.optional() }).refine((body) => body.content !== undefined || body.status !== undefined, "give content, status or both");

/** The list as it stands: the last one set, by the run or over the API. */
function currentList(execution: Execution): PlanList | undefined {
  return planHistory(execution.events, execution.watch.detailed(), execution.planEdits).at(-1);
}

/** The given tasks as the run's todos, in their order: an `id` names a task of the plan (whose text
 * shown while in progress is kept when its content is), `order` all of them or none. */
function todosOf(tasks: z.infer<typeof TaskIn>[], current: PlanList | undefined, operation: string): Todo[] {
  const ordered = tasks.filter((task) => task.order !== undefined);
  if (ordered.length > 0 && ordered.length < tasks.length) throw new ApiError(400, "invalid_request", "tasks: give every task an order, or none (the list's order then)", operation);
  if (new Set(ordered.map((task) => task.order)).size < ordered.length) throw new ApiError(400, "invalid_request", "tasks: two tasks have the same order", operation);
  const ids = tasks.flatMap((task) => (task.id === undefined ? [] : [task.id]));
  if (new Set(ids).size < ids.length) throw new ApiError(400, "invalid_request", "tasks: two tasks have the same id", operation);
  const byId = new Map((current?.tasks ?? []).map((task, i) => [task.id, current!.todos[i]]));
  tasks.forEach((task, i) => {
    if (task.id !== undefined && !byId.has(task.id)) throw new ApiError(400, "invalid_request", `tasks[${i}].id: the plan has no task "${task.id}" (leave id out for a new task)`, operation);
  });
  const sorted = ordered.length > 0 ? [...tasks].sort((a, b) => a.order! - b.order!) : tasks;
  return sorted.map((task) => {
    const was = task.id === undefined ? undefined : byId.get(task.id);
    return { content: task.content, status: task.status, activeForm: was?.content === task.content ? was.activeForm : task.content };
  });
}

/** Sets `todos` as the run's list, its refusals answered in the API's words. */
async function setTodos(execution: Execution, todos: Todo[], operation: string): Promise<void> {
  const answer = await execution.setTodos(todos);
  if (answer.ok) return;
  if (answer.status === 409 || answer.status === 404) {
    // Ended meanwhile; or not started on its runner yet, which a moment mends.
    if (execution.watch.finished) throw new ApiError(409, "execution_finished", `execution "${execution.id}" has ended: its plan is the run's, as it left it`, operation);
    throw new ApiError(409, "conflict", `the plan of execution "${execution.id}" cannot be changed now (${answer.message}): try again`, operation);
  }
  if (answer.status === 501) throw new ApiError(501, "not_implemented", `the plan cannot be changed: ${answer.message}`, operation);
  throw new ApiError(502, "runner_error", `the session's runner did not take the plan: ${answer.message}`, operation);
}

/** The execution, which must be under way for its plan to change. */
function underWay(oh: OpenHarness, c: Context, operation: string): Execution {
  const execution = executionNamed(oh, c);
  if (execution.watch.finished) throw new ApiError(409, "execution_finished", `execution "${execution.id}" has ended: its plan is the run's, as it left it`, operation);
  return execution;
}

export function mountPlanWriteRoutes(oh: OpenHarness): void {
  const { app } = oh;
  app.patch(
    `${H}/executions/:executionId/plan`,
    handle(async (c) => {
      const operation = "planning.update";
      const execution = underWay(oh, c, operation);
      const body = check(UpdatePlanBody, await bodyOf(c));
      if (body.tasks !== undefined) await setTodos(execution, todosOf(body.tasks, currentList(execution), operation), operation);
      return c.json({ plan: planOf(execution) });
    }),
  );
  app.patch(
    `${H}/executions/:executionId/plan/tasks/:taskId`,
    handle(async (c) => {
      const operation = "planning.updateTask";
      const execution = underWay(oh, c, operation);
      const body = check(UpdateTaskBody, await bodyOf(c));
      const taskId = c.req.param("taskId")!;
      const current = currentList(execution);
      const index = current?.tasks.findIndex((task) => task.id === taskId) ?? -1;
      if (!current || index < 0) throw new ApiError(404, "task_not_found", `the plan has no task "${taskId}" (a task's id is its place in the list: 1, 2, …)`, operation);
      const todos = current.todos.map((todo, i) =>
        i !== index ? todo : { content: body.content ?? todo.content, status: body.status ?? todo.status, activeForm: body.content === undefined || body.content === todo.content ? todo.activeForm : body.content },
      );
      await setTodos(execution, todos, operation);
      return c.json({ task: planOf(execution).tasks[index] });
    }),
  );
}
