// How a tool call shows in the terminal, the same in `harness run`'s renderer and in the chat: the
// label of its header, and, once it ended, what an edit changed or the list a TodoWrite set when
// the call went through, else an excerpt of its output (which each cuts its own way).
import { CHANGE_ROWS, changeLabel, editChange, formatChange } from "./edit-diff.ts";
import { formatTodos, TODO_ITEMS, TODO_LABEL, todoItems } from "./todo-list.ts";

type Paint = (text: string) => string;
export type CallStyle = { bold: Paint; dim: Paint; strike: Paint; red: Paint; green: Paint };

/** The header's label: "Update Todos" for a TodoWrite's list, else what `describe` makes of the
 * tool's name as shown ("Update" for an edit) and its input. */
export function callLabel(toolName: string, input: Record<string, unknown> | undefined, describe: (shownName: string) => string): string {
  return todoItems(toolName, input) ? TODO_LABEL : describe(changeLabel(toolName));
}

/** The lines under a call that ended, `width` columns at most, every row of them with `full`. */
export function callBody(
  call: { toolName: string; input?: Record<string, unknown>; output: string; failed: boolean },
  o: { width: number; full: boolean; cwd?: string },
  style: CallStyle,
  excerpt: () => string[],
): string[] {
  if (call.failed) return excerpt();
  const change = editChange(call.toolName, call.input, call.output, o.cwd);
  if (change) return formatChange(change, { width: o.width, maxRows: o.full ? Infinity : CHANGE_ROWS, red: style.red, green: style.green, dim: style.dim });
  const todos = todoItems(call.toolName, call.input);
  if (todos) return formatTodos(todos, { width: o.width, maxItems: o.full ? Infinity : TODO_ITEMS, bold: style.bold, dim: style.dim, strike: style.strike });
  return excerpt();
}

/** The lines an edit waiting for approval would remove and add (no line numbers: the file is not
 * read for them), for the user to see before answering; none for a call of another tool. */
export function proposedChange(
  call: { toolName: string; input?: Record<string, unknown> },
  o: { width: number; full: boolean; cwd?: string },
  style: CallStyle,
): string[] {
  const change = editChange(call.toolName, call.input, "", o.cwd);
  if (!change) return [];
  return formatChange(change, { width: o.width, maxRows: o.full ? Infinity : CHANGE_ROWS, red: style.red, green: style.green, dim: style.dim }).slice(1);
}
