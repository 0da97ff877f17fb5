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
