import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import type { TodoItem } from "./state.ts";

export const TODOS_UPDATED =
  "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";

const description = `Creates and updates the task list for the current piece of work, which the user sees as you progress.

When to use it:
- For tasks with three or more distinct steps, or work the user gave as a list, or anything non-trivial that benefits from planning.
- When the user gives new instructions: add them as todos.
- Not for a single, simple step, or a purely conversational question.

How to use it:
- Each call sends the complete list; it replaces the previous one.
- Every item has content (what to do, in the imperative: "Run the tests"), activeForm (the same in the present continuous, shown while it is being worked on: "Running the tests") and status: pending, in_progress or completed.
- Keep exactly one item in_progress at a time. Mark it in_progress before starting, and completed as soon as it is done; do not save up several completions.
- Only mark an item completed when it is fully done: not while tests fail, the implementation is partial, or errors are unresolved. Add a new item for what blocks it instead.
- Remove items that are no longer relevant.`;

const todoSchema = z.strictObject({
  content: z.string().min(1).describe("What needs to be done, in the imperative"),
  status: z.enum(["pending", "in_progress", "completed"]),
  activeForm: z.string().min(1).describe("The same, in the present continuous, shown while it is in progress"),
});

export const todoWriteTool = defineTool({
  name: "TodoWrite",
  readOnly: true,
  description,
  parameters: z.strictObject({
    todos: z.array(todoSchema).describe("The updated todo list"),
  }),
  async execute({ todos }, { state }) {
    if (state) {
      const list: TodoItem[] = todos.map(({ content, status, activeForm }) => ({ content, status, activeForm }));
      state.todos = list;
      try {
        state.onTodosChange?.(list);
      } catch {
        // A failing listener must not undo the update the model already made.
      }
    }
    return { content: TODOS_UPDATED };
  },
});
