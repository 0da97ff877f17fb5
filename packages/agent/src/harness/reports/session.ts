// The reports /todos, /model, /permissions and /add-dir answer with, without a model call: the
// conversation's todo list, the models one can switch to, the permission rules in effect and the
// working directories. Plain text, one item a line.
import { defaultModel, type ModelMessage } from "@harness/llm";
import type { TodoItem } from "../../tools/state.ts";
import type { PermissionContext, PermissionRule } from "../../permissions/types.ts";
import { claudeAlias, type EnvLike } from "../../subagents/agent-model.ts";
import { modelAllowed } from "../model/available-models.ts";

const MARKS: Record<TodoItem["status"], string> = { completed: "[x]", in_progress: "[>]", pending: "[ ]" };

/** /todos: `live` (the list the conversation's TodoWrite calls left in this process) when it has
 * any, else the last TodoWrite of `history` that succeeded (a conversation continued in another
 * process). */
export function todosReport(live: readonly TodoItem[], history: readonly ModelMessage[]): string {
  const todos = live.length > 0 ? live : lastTodoWrite(history);
  if (todos.length === 0) return "No todos: the list is empty (the model keeps it with its TodoWrite tool).";
  const done = todos.filter((todo) => todo.status === "completed").length;
  return [`Todos: ${done} of ${todos.length} completed`, "", ...todos.map((todo) => `  ${MARKS[todo.status] ?? "[ ]"} ${todo.content}`)].join("\n");
}

function lastTodoWrite(history: readonly ModelMessage[]): readonly TodoItem[] {
  const failed = new Set<string>();
  for (let i = history.length - 1; i >= 0; i--) {
    const { content } = history[i]!;
    if (typeof content === "string") continue;
    for (const block of content) if (block.type === "tool_result" && block.is_error) failed.add(block.tool_use_id);
    for (let j = content.length - 1; j >= 0; j--) {
      const block = content[j]!;
      if (block.type !== "tool_use" || block.name !== "TodoWrite" || failed.has(block.id)) continue;
      const todos = block.input.todos;
      if (Array.isArray(todos)) return todos.filter(isTodo);
    }
  }
  return [];
}

function isTodo(value: unknown): value is TodoItem {
  const todo = value as Partial<TodoItem> | null;
  return typeof todo === "object" && todo !== null && typeof todo.content === "string" && typeof todo.status === "string" && todo.status in MARKS;
}

/** /model: the run's model, the aliases (those `allowed` admits) with the model each stands for,
 * and the settings' availableModels; switching is the chat's `/model ID` or the run's --model. */
export function modelReport(model: string, allowed: readonly string[] | undefined, env: EnvLike): string {
  const aliases = ["default", "sonnet", "opus", "haiku"].filter((alias) => allowed === undefined || alias === "default" || modelAllowed(alias, allowed, env));
  const width = Math.max(...aliases.map((alias) => alias.length));
  const lines = [`Current model: ${model}`, "", "Aliases:", ...aliases.map((alias) => `  ${alias.padEnd(width)} → ${alias === "default" ? defaultModel(env) : (claudeAlias(alias, env) ?? alias)}`)];
  if (allowed !== undefined) lines.push("", "Models the settings allow (availableModels):", ...(allowed.length > 0 ? allowed.map((entry) => `  ${entry}`) : ["  none: only the default model runs"]));
  lines.push("", "Switch with /model ID in a chat (an alias or a model id, e.g. /model opus), or with --model in harness run.");
  return lines.join("\n");
}

/** /permissions: the mode, then the allow, ask and deny rules in effect with the file each was
 * written in, and the working directories. */
export function permissionsReport(permissions: PermissionContext): string {
  const lines = [`Permission mode: ${permissions.mode}`];
  const sections: [string, readonly PermissionRule[]][] = [
    ["Allow", permissions.rules.allow],
    ["Ask", permissions.rules.ask],
    ["Deny", permissions.rules.deny],
  ];
  for (const [title, rules] of sections) {
    lines.push("", `${title}:`);
    lines.push(...(rules.length > 0 ? rules.map((rule) => `  ${rule.text} · ${rule.source ?? "the run"}`) : ["  (none)"]));
  }
  lines.push("", ...directories(permissions));
  lines.push("", "Rules are written in the settings files' \"permissions\" (allow, ask, deny), or given with --allowedTools and --disallowedTools.");
  return lines.join("\n");
}

/** /add-dir PATH: the working directories, and how to add one. A run's directories are fixed when it
 * starts (the wire carries no command for it), so the answer says how to start with it. */
export function addDirReport(permissions: PermissionContext, path: string): string {
  const flag = path ? `--add-dir ${path}` : "--add-dir PATH";
  return [...directories(permissions), "", `A working directory is added when the conversation starts: start the chat (or the run) again with ${flag}, e.g. harness chat ${flag} --continue.`].join("\n");
}

function directories(permissions: PermissionContext): string[] {
  return ["Working directories:", `  ${permissions.cwd}`, ...permissions.additionalDirectories.map((dir) => `  ${dir}`)];
}
