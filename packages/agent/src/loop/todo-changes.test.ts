import { test } from "node:test";
import assert from "node:assert/strict";
import { createToolState, type TodoItem } from "../tools/state.ts";
import { watchTodoChanges } from "./todo-changes.ts";

test("a list set from outside is the tools' list at once, its holder told, and the model's reminder once", () => {
  const heard: (readonly TodoItem[])[] = [];
  const state = createToolState({ onTodosChange: (todos) => heard.push(todos) });
  let listener: ((todos: TodoItem[]) => boolean) | undefined;
  const changes = watchTodoChanges((l) => {
    listener = l;
    return () => (listener = undefined);
  }, state);
  assert.equal(changes.take(), undefined);
  assert.equal(listener!([{ content: "Ship it", status: "pending", activeForm: "Shipping it" }]), true);
  assert.deepEqual(state.todos, [{ content: "Ship it", status: "pending", activeForm: "Shipping it" }]);
  assert.equal(heard.length, 1);
  const reminder = changes.take();
  assert.match(reminder?.text ?? "", /^<system-reminder>\nThe user changed your todo list\. It is now:\n1\. \[pending\] Ship it\n/);
  assert.equal(changes.take(), undefined, "told once");
  listener!([]);
  assert.match(changes.take()?.text ?? "", /cleared your todo list/);
  changes.close();
  assert.equal(listener, undefined);
  assert.equal(watchTodoChanges(undefined, state).take(), undefined);
});
