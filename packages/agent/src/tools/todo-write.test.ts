import assert from "node:assert/strict";
import { test } from "node:test";
import { tempWorkspace } from "../testing/fixtures.ts";
import { createToolState, getTodos, type TodoItem } from "./state.ts";
import { callWithState } from "./test-helpers.ts";
import { TODOS_UPDATED, todoWriteTool } from "./todo-write.ts";

const todos: TodoItem[] = [
  { content: "Run the tests", status: "completed", activeForm: "Running the tests" },
  { content: "Fix the failures", status: "in_progress", activeForm: "Fixing the failures" },
  { content: "Update the changelog", status: "pending", activeForm: "Updating the changelog" },
];

test("TodoWrite replaces the list, tells the listener and confirms as Claude Code does", async (t) => {
  const cwd = await tempWorkspace(t);
  const heard: (readonly TodoItem[])[] = [];
  const state = createToolState({ onTodosChange: (list) => heard.push(list) });
  const out = await callWithState(todoWriteTool, { todos }, cwd, state);
  assert.deepEqual(out, { content: TODOS_UPDATED });
  assert.match(TODOS_UPDATED, /^Todos have been modified successfully\. Ensure that you continue to use the todo list/);
  assert.deepEqual(getTodos(state), todos);
  const next = await callWithState(todoWriteTool, { todos: todos.slice(2) }, cwd, state);
  assert.equal(next.isError, undefined);
  assert.deepEqual(getTodos(state), todos.slice(2));
  assert.deepEqual(heard, [todos, todos.slice(2)]);
  await callWithState(todoWriteTool, { todos: [] }, cwd, state);
  assert.deepEqual(getTodos(state), []);
});

test("TodoWrite rejects malformed items and keeps the previous list", async (t) => {
  const cwd = await tempWorkspace(t);
  const state = createToolState();
  await callWithState(todoWriteTool, { todos }, cwd, state);
  const badStatus = await callWithState(todoWriteTool, { todos: [{ content: "x", status: "done", activeForm: "Doing x" }] }, cwd, state);
  assert.equal(badStatus.isError, true);
  assert.match(badStatus.content, /parameter "todos\.0\.status" must be one of "pending", "in_progress", "completed", but got string "done"/);
  const missing = await callWithState(todoWriteTool, { todos: [{ content: "x", status: "pending" }] }, cwd, state);
  assert.match(missing.content, /missing required parameter "todos\.0\.activeForm"/);
  assert.deepEqual(getTodos(state), todos);
});
