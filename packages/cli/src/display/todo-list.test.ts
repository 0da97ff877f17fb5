import { test } from "node:test";
import assert from "node:assert/strict";
import { formatTodos, TODO_ITEMS, todoItems, type TodoStyle } from "./todo-list.ts";

const plain: TodoStyle = { width: 80, maxItems: TODO_ITEMS, bold: (t) => t, dim: (t) => t, strike: (t) => t };
const tag = (name: string) => (t: string) => `<${name}>${t}</${name}>`;
const TODOS = [
  { content: "Write the parser", status: "completed", activeForm: "Writing the parser" },
  { content: "Test the parser", status: "in_progress", activeForm: "Testing the parser" },
  { content: "Document it", status: "pending", activeForm: "Documenting it" },
];

test("a TodoWrite call's list shows each item in order, ☒ done and ☐ not yet, by what it is to do", () => {
  const items = todoItems("TodoWrite", { todos: TODOS });
  assert.ok(items);
  assert.deepEqual(formatTodos(items, plain), ["☒ Write the parser", "☐ Test the parser", "☐ Document it"]);
});

test("in colour a done item is dimmed and struck through, and the one in progress is bold", () => {
  const items = todoItems("TodoWrite", { todos: TODOS })!;
  assert.deepEqual(formatTodos(items, { ...plain, bold: tag("b"), dim: tag("d"), strike: tag("s") }), [
    "<d>☒ <s>Write the parser</s></d>",
    "<b>☐ Test the parser</b>",
    "☐ Document it",
  ]);
});

test("an item is one line cut to the width, its mark included, without the control characters it held", () => {
  const items = todoItems("TodoWrite", { todos: [{ content: "Rename\nthe\x07 module \x1b  everywhere it is used", status: "pending", activeForm: "Renaming" }] })!;
  assert.deepEqual(formatTodos(items, { ...plain, width: 20 }), ["☐ Rename the module…"]);
});

test("a long list shows its first items and how many more there are; the verbose one all of them", () => {
  const todos = Array.from({ length: 20 }, (_, i) => ({ content: `Step ${i + 1}`, status: "pending", activeForm: `Doing step ${i + 1}` }));
  const items = todoItems("TodoWrite", { todos })!;
  const shown = formatTodos(items, plain);
  assert.equal(shown.length, TODO_ITEMS + 1);
  assert.equal(shown[TODO_ITEMS - 1], `☐ Step ${TODO_ITEMS}`);
  assert.equal(shown.at(-1), `… ${20 - TODO_ITEMS} more`);
  assert.equal(formatTodos(items, { ...plain, maxItems: Infinity }).length, 20);
});

test("an empty list says so", () => {
  assert.deepEqual(formatTodos(todoItems("TodoWrite", { todos: [] })!, plain), ["No todos"]);
});

test("a call of another tool, or whose input is not a todo list, is not one (it shows as any call does)", () => {
  assert.equal(todoItems("Write", { todos: TODOS }), undefined);
  assert.equal(todoItems("TodoWrite", undefined), undefined);
  assert.equal(todoItems("TodoWrite", {}), undefined);
  assert.equal(todoItems("TodoWrite", { todos: "write the parser" }), undefined);
  assert.equal(todoItems("TodoWrite", { todos: [null] }), undefined);
  assert.equal(todoItems("TodoWrite", { todos: [{ content: "Ship", status: "done" }] }), undefined);
  assert.equal(todoItems("TodoWrite", { todos: [{ content: 3, status: "pending" }] }), undefined);
  assert.equal(todoItems("TodoWrite", { todos: [{ content: "", status: "pending" }] }), undefined);
});
