// The todo list a TodoWrite call sets, as Claude Code shows it under the call: "Update Todos", then
// each item in order, ☒ when done (dimmed and struck through), ☐ when not, the one in progress in
// bold. It is read from the call's input, which the model may send in any shape: one that is not a
// list of todos is shown by the call's output, as any call is.
import type { HarnessMessage } from "@harness/protocol";
import { cut, printable } from "./terminal-text.ts";

export type TodoStatus = "pending" | "in_progress" | "completed";
export type Todo = { content: string; status: TodoStatus };

export type TodoStyle = {
  /** Columns an item may take, its mark included. */
  width: number;
  /** Items shown before "… N more" (Infinity: all). */
  maxItems: number;
  bold(text: string): string;
  dim(text: string): string;
  strike(text: string): string;
};

/** The name a TodoWrite call's header shows, in place of its input. */
export const TODO_LABEL = "Update Todos";
/** Items of a list shown, unless every item is asked for (a chat's --verbose). */
export const TODO_ITEMS = 15;

const STATUSES = new Set<unknown>(["pending", "in_progress", "completed"]);

/** The list a call sets, or undefined for a call of another tool or whose input is not a list of
 * items each with some content and a known status. */
export function todoItems(toolName: string, input: Record<string, unknown> | undefined): Todo[] | undefined {
  if (toolName !== "TodoWrite" || !Array.isArray(input?.todos)) return undefined;
  const todos: unknown[] = input.todos;
  const valid = todos.every((todo) => {
    const { content, status } = (todo ?? {}) as Record<string, unknown>;
    return typeof content === "string" && content.trim() !== "" && STATUSES.has(status);
  });
  return valid ? (todos as Todo[]).map(({ content, status }) => ({ content, status })) : undefined;
}

/** The list's lines for a terminal: an item each, on one line cut to the width, then how many
 * more items there are. */
export function formatTodos(todos: readonly Todo[], style: TodoStyle): string[] {
  if (todos.length === 0) return [style.dim("No todos")];
  const lines = todos.slice(0, style.maxItems).map(({ content, status }) => {
    const text = cut(`${status === "completed" ? "☒" : "☐"} ${printable(content).replace(/\s+/g, " ").trim()}`, style.width);
    if (status === "completed") return style.dim(`${text.slice(0, 2)}${style.strike(text.slice(2))}`);
    return status === "in_progress" ? style.bold(text) : text;
  });
  if (todos.length > style.maxItems) lines.push(style.dim(`… ${todos.length - style.maxItems} more`));
  return lines;
}

/** The todo list as the conversation's last TodoWrite of the main agent set it (a sub-agent's list
 * is its own), or undefined when none set one. */
export function currentTodos(messages: readonly HarnessMessage[]): Todo[] | undefined {
  for (const message of messages.toReversed()) {
    for (const call of (message.toolCalls ?? []).toReversed()) {
      if (call.parentToolCallId !== undefined || call.status === "denied" || call.status === "error") continue;
      const todos = todoItems(call.name, call.input);
      if (todos) return todos;
    }
  }
  return undefined;
}
