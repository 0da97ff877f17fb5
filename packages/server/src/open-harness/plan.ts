// An execution's plan as the spec has it (Plan, PlanTask, PlanEvent): the todo list its run keeps
// with the TodoWrite tool (ours and Claude Code's alike), each call sending the whole list. Derived
// from the execution's events (which calls succeeded, in order) and its tool calls (their input),
// so a stored execution has the same plan as the live one had; and from the lists set over the API
// while it ran (PlanEdit), each in its place among the events. Tasks have no id of their own: a
// task is its place in the list ("1", "2", …).
import type { DetailedToolCall } from "./execution-record.ts";
import type { ExecutionEvent } from "./run-watch.ts";

export type TaskStatus = "pending" | "in_progress" | "completed";
export type PlanTask = { id: string; content: string; status: TaskStatus; order: number };
export type PlanEvent = { type: "task.added"; task: PlanTask } | { type: "task.updated"; task: PlanTask } | { type: "task.removed"; task_id: string };
/** A todo as the run keeps it: `activeForm` is what is shown while it is in progress. */
export type Todo = { content: string; status: TaskStatus; activeForm: string };
/** A list set over the API, once there were `after` events, at `at`. */
export type PlanEdit = { after: number; todos: Todo[]; at: string };
export type PlanList = { tasks: PlanTask[]; todos: Todo[]; at?: string };

const STATUSES = new Set<string>(["pending", "in_progress", "completed"]);

/** The lists the run's TodoWrite calls set, in the order they succeeded, with when each ended, and
 * those of `edits` among them. */
export function planHistory(events: readonly ExecutionEvent[], calls: readonly DetailedToolCall[], edits: readonly PlanEdit[] = []): PlanList[] {
  const todoWrites = new Set(events.flatMap((event) => (event.type === "tool_call_start" && event.name === "TodoWrite" ? [event.id] : [])));
  const byId = new Map(calls.map((call) => [call.id, call]));
  const lists: PlanList[] = [];
  let edit = 0;
  const editsBefore = (index: number) => {
    for (; edit < edits.length && edits[edit].after <= index; edit++) lists.push(listOf(edits[edit].todos, edits[edit].at));
  };
  events.forEach((event, index) => {
    editsBefore(index);
    if (event.type !== "tool_result" || !event.success || !todoWrites.has(event.id)) return;
    const call = byId.get(event.id);
    lists.push(listOf(todosOf((call?.input as { todos?: unknown } | undefined)?.todos), call?.completed_at));
  });
  editsBefore(Number.POSITIVE_INFINITY);
  return lists;
}

function listOf(todos: Todo[], at: string | undefined): PlanList {
  const tasks = todos.map((todo, i) => ({ id: String(i + 1), content: todo.content, status: todo.status, order: i + 1 }));
  return { tasks, todos, ...(at !== undefined && { at }) };
}

function todosOf(todos: unknown): Todo[] {
  if (!Array.isArray(todos)) return [];
  return todos
    .filter((todo): todo is { content: string; status: TaskStatus; activeForm?: unknown } => typeof todo?.content === "string" && STATUSES.has(todo?.status))
    .map((todo) => ({ content: todo.content, status: todo.status, activeForm: typeof todo.activeForm === "string" && todo.activeForm !== "" ? todo.activeForm : todo.content }));
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

/** Every change made to the run's list (by the run, and over the API), in order. */
export function planEvents(events: readonly ExecutionEvent[], calls: readonly DetailedToolCall[], edits: readonly PlanEdit[] = []): PlanEvent[] {
  let tasks: PlanTask[] = [];
  const changes: PlanEvent[] = [];
  for (const list of planHistory(events, calls, edits)) {
    changes.push(...planChanges(tasks, list.tasks));
    tasks = list.tasks;
  }
  return changes;
}
