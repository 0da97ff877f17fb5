// The agent's built-in slash commands that the model never answers as a prompt: /help, /clear and
// /compact, and the reports on the conversation and the run (/cost, /status, …). One list, for the
// agent that answers them and for what tells a conversation's prompts from its commands.

/** Reserved names; custom commands and skills cannot take them. */
export const BUILTIN_COMMANDS = ["compact", "clear", "help"] as const;

/** Built-ins that report on the conversation without a model call; a user's own command or skill
 * of the same name replaces them, as it replaces a built-in prompt. */
export const REPORT_COMMANDS = ["context", "cost", "mcp", "memory", "agents", "hooks", "status", "todos", "export", "model", "permissions", "add-dir", "tasks", "bashes"] as const;

const LOCAL = new Set<string>([...BUILTIN_COMMANDS, ...REPORT_COMMANDS]);

/** Whether `prompt` calls one of the built-ins above (by name alone: a user's own command that
 * replaces a report is not told apart, as Claude Code does not tell it apart for a title). */
export function isBuiltinCommandPrompt(prompt: string): boolean {
  const name = /^\/([^\s/]+)(?:\s|$)/.exec(prompt.trim())?.[1];
  return name !== undefined && LOCAL.has(name);
}
