// Todo lists set from outside a run in flight (the user changed its plan): the list TodoWrite keeps
// becomes the new one at once (a /todos, a compaction, the model's next TodoWrite start from it),
// and the model reads it with its next request, in a reminder, as Claude Code shows it a list.
import { systemReminder } from "../context/format-memory.ts";
import type { TextBlock } from "@harness/llm";
import type { TodoItem, ToolState } from "../tools/state.ts";

export type TodoChanges = {
  /** The reminder for the list set since the last take, if one was. */
  take(): TextBlock | undefined;
  close(): void;
};

/** Watches `subscribe` (absent: nothing is set from outside) for the run whose tools keep `state`. */
export function watchTodoChanges(subscribe: ((listener: (todos: TodoItem[]) => boolean) => () => void) | undefined, state: ToolState): TodoChanges {
  let unseen: readonly TodoItem[] | undefined;
  const unsubscribe = subscribe?.((todos) => {
    const list = todos.map(({ content, status, activeForm }) => ({ content, status, activeForm }));
    state.todos = list;
    unseen = list;
    try {
      state.onTodosChange?.(list);
    } catch {
      // A failing listener must not undo the change the user made.
    }
    return true;
  });
  return {
    take() {
      const list = unseen;
      unseen = undefined;
      return list && { type: "text", text: systemReminder(todoChangeText(list)) };
    },
    close: () => unsubscribe?.(),
  };
}

/** What the model is told of a list the user set. */
export function todoChangeText(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return "The user cleared your todo list: it is empty now. Use the TodoWrite tool if you need a new one.";
  const items = todos.map((todo, i) => `${i + 1}. [${todo.status}] ${todo.content}`).join("\n");
  return `The user changed your todo list. It is now:\n${items}\nWork from this list: keep it up to date with the TodoWrite tool, starting from it as it stands.`;
}
