// An execution's plan as the spec has it (Plan, PlanTask, PlanEvent): the todo list its run keeps
// with the TodoWrite tool (ours and Claude Code's alike), each call sending the whole list. Derived
// from the execution's events (which calls succeeded, in order) and its tool calls (their input),
// so a stored execution has the same plan as the live one had. Tasks have no id of their own: a
// task is its place in the list ("1", "2", …).
import type { DetailedToolCall } from "./execution-record.ts";
import type { ExecutionEvent } from "./run-watch.ts";

export type TaskStatus = "pending" | "in_progress" | "completed";
export type PlanTask = { id: string; content: string; status: TaskStatus; order: number };
export type PlanEvent = { type: "task.added"; task: PlanTask } | { type: "task.updated"; task: PlanTask } | { type: "task.removed"; task_id: string };

const STATUSES = new Set<string>(["pending", "in_progress", "completed"]);

/** The lists the run's TodoWrite calls set, in the order they succeeded, with when each ended. */
export function planHistory(events: readonly ExecutionEvent[], calls: readonly DetailedToolCall[]): { tasks: PlanTask[]; at?: string }[] {
  const todoWrites = new Set(events.flatMap((event) => (event.type === "tool_call_start" && event.name === "TodoWrite" ? [event.id] : [])));
  const byId = new Map(calls.map((call) => [call.id, call]));
  const lists: { tasks: PlanTask[]; at?: string }[] = [];
  for (const event of events) {
    if (event.type !== "tool_result" || !event.success || !todoWrites.has(event.id)) continue;
    const call = byId.get(event.id);
    lists.push({ tasks: tasksOf((call?.input as { todos?: unknown } | undefined)?.todos), ...(call?.completed_at !== undefined && { at: call.completed_at }) });
  }
  return lists;
}

function tasksOf(todos: unknown): PlanTask[] {
  if (!Array.isArray(todos)) return [];
  return todos
    .filter((todo): todo is { content: string; status: TaskStatus } => typeof todo?.content === "string" && STATUSES.has(todo?.status))
    .map((todo, i) => ({ id: String(i + 1), content: todo.content, status: todo.status, order: i + 1 }));
}

/** What changed from one list to the next, task by task. */
export function planChanges(before: readonly PlanTask[], after: readonly PlanTask[]): PlanEvent[] {
  const old = new Map(before.map((task) => [task.id, task]));
  const changes: PlanEvent[] = [];
  for (const task of after) {
    const was = old.get(task.id);
    if (!was) changes.push({ type: "task.added", task });
    else if (was.content !== task.content || was.status !== task.status) changes.push({ type: "task.updated", task });
  }
  const kept = new Set(after.map((task) => task.id));
  for (const task of before) if (!kept.has(task.id)) changes.push({ type: "task.removed", task_id: task.id });
  return changes;
}

/** Every change the run made to its list, in order. */
export function planEvents(events: readonly ExecutionEvent[], calls: readonly DetailedToolCall[]): PlanEvent[] {
  let tasks: PlanTask[] = [];
  const changes: PlanEvent[] = [];
  for (const list of planHistory(events, calls)) {
    changes.push(...planChanges(tasks, list.tasks));
    tasks = list.tasks;
  }
  return changes;
}
