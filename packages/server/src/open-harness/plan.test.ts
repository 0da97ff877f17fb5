import { test } from "node:test";
import assert from "node:assert/strict";
import { planEvents, planHistory } from "./plan.ts";
import type { ExecutionEvent } from "./run-watch.ts";

const call = (id: string, todos: unknown) => ({ id, name: "TodoWrite", input: { todos }, status: "completed" as const, started_at: "t", completed_at: `2026-01-01T00:00:0${id}Z` });

test("a plan follows the run's successful TodoWrite calls only; a shorter list removes the tasks past its end", () => {
  const events: ExecutionEvent[] = [
    { type: "tool_call_start", id: "1", name: "TodoWrite", input: {} },
    { type: "tool_result", id: "1", success: true },
    { type: "tool_call_start", id: "2", name: "TodoWrite", input: {} },
    { type: "tool_result", id: "2", success: false },
    { type: "tool_call_start", id: "3", name: "Glob", input: {} },
    { type: "tool_result", id: "3", success: true },
    { type: "tool_call_start", id: "4", name: "TodoWrite", input: {} },
    { type: "tool_result", id: "4", success: true },
  ];
  const calls = [
    call("1", [{ content: "a", status: "pending" }, { content: "b", status: "pending" }, { content: "bad", status: "unknown" }]),
    call("2", [{ content: "never", status: "pending" }]),
    { ...call("3", []), name: "Glob" },
    call("4", [{ content: "a", status: "completed" }]),
  ];
  const history = planHistory(events, calls);
  assert.deepEqual(history.map((list) => [list.at, list.tasks.map((t) => `${t.id}:${t.content}:${t.status}`)]), [
    ["2026-01-01T00:00:01Z", ["1:a:pending", "2:b:pending"]],
    ["2026-01-01T00:00:04Z", ["1:a:completed"]],
  ]);
  assert.deepEqual(planEvents(events, calls).map((e) => (e.type === "task.removed" ? `${e.type} ${e.task_id}` : `${e.type} ${e.task.id}`)), [
    "task.added 1",
    "task.added 2",
    "task.updated 1",
    "task.removed 2",
  ]);
});

test("a list set over the API takes its place among the run's, by the events there were when it was set", () => {
  const events: ExecutionEvent[] = [
    { type: "tool_call_start", id: "1", name: "TodoWrite", input: {} },
    { type: "tool_result", id: "1", success: true },
    { type: "text", content: "working" },
    { type: "tool_call_start", id: "2", name: "TodoWrite", input: {} },
    { type: "tool_result", id: "2", success: true },
  ];
  const calls = [call("1", [{ content: "a", status: "pending", activeForm: "Doing a" }]), call("2", [{ content: "b", status: "in_progress", activeForm: "Doing b" }])];
  const edits = [
    { after: 2, todos: [{ content: "a", status: "completed" as const, activeForm: "Doing a" }, { content: "z", status: "pending" as const, activeForm: "z" }], at: "2026-01-01T00:00:02Z" },
    { after: 5, todos: [], at: "2026-01-01T00:00:09Z" },
  ];
  const history = planHistory(events, calls, edits);
  assert.deepEqual(history.map((list) => [list.at, list.todos.map((t) => `${t.content}:${t.status}:${t.activeForm}`)]), [
    ["2026-01-01T00:00:01Z", ["a:pending:Doing a"]],
    ["2026-01-01T00:00:02Z", ["a:completed:Doing a", "z:pending:z"]],
    ["2026-01-01T00:00:02Z", ["b:in_progress:Doing b"]],
    ["2026-01-01T00:00:09Z", []],
  ]);
  assert.deepEqual(planEvents(events, calls, edits).map((e) => (e.type === "task.removed" ? `${e.type} ${e.task_id}` : `${e.type} ${e.task.id} ${e.task.content}`)), [
    "task.added 1 a",
    "task.updated 1 a",
    "task.added 2 z",
    "task.updated 1 b",
    "task.removed 2",
    "task.removed 1",
  ]);
});
