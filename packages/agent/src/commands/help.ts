import { promptUsage } from "../mcp/prompt-arguments.ts";
import type { McpPromptCommand } from "../mcp/prompts.ts";
import type { Plugin } from "../plugins/types.ts";
import type { Skill } from "../skills/types.ts";
import { BUILTIN_PROMPTS } from "./builtin-prompts.ts";
import type { SlashCommand } from "./types.ts";

const BUILTIN_HELP: [string, string][] = [
  ["/compact [instructions]", "Summarize the conversation so far to free context, optionally focused by the instructions"],
  ["/clear", "Start a new conversation"],
  ["/help", "Show this list"],
];

/** The report built-ins (see REPORT_COMMANDS), which a user's own command may replace. */
const REPORT_HELP: [string, string, string][] = [
  ["context", "/context", "Show how the model's context window is used: the system prompt, tools, memory files, skills and messages"],
  ["cost", "/cost", "Show what the conversation has used and cost so far"],
  ["mcp", "/mcp", "Show the MCP servers: connected, failed (and why), disabled or awaiting approval, where each is configured, and their tools"],
  ["memory", "/memory", "Show the memory files loaded (CLAUDE.md, CLAUDE.local.md, rules, imports), in order, with their paths and sizes, and those left out"],
  ["agents", "/agents", "Show the sub-agents available, where each comes from, its tools and model"],
  ["hooks", "/hooks", "Show the hooks configured, by event, with matcher, if, type and the file that defines them"],
  ["status", "/status", "Show the model, permission mode, directories, settings files in effect and session id"],
  ["todos", "/todos", "Show the todo list the model keeps for the conversation"],
  ["export", "/export [file]", "Write the conversation as text to the file, or show it"],
  ["model", "/model", "Show the current model and those one can switch to (aliases, the settings' availableModels)"],
  ["permissions", "/permissions", "Show the permission mode and the allow, ask and deny rules in effect, with where each comes from"],
  ["add-dir", "/add-dir <path>", "Show the working directories and how to add one"],
  ["tasks", "/tasks [kill <id>]", "Show the background shells (id, command, status, running time); kill <id> stops one (/bashes too)"],
];

/** The text /help shows: built-ins, then custom commands and user-invocable skills, by name, then
 * the MCP servers' prompts, then the plugins that loaded. */
export function slashCommandHelp(sources: {
  commands: readonly SlashCommand[];
  skills: readonly Skill[];
  mcpPrompts?: readonly McpPromptCommand[];
  plugins?: readonly Pick<Plugin, "name" | "version" | "description" | "root">[];
}): string {
  const custom = [
    ...sources.commands.map((command): [string, string] => [usage(command.name, command.argumentHint), `${command.description} (${command.plugin ? `plugin ${command.plugin}` : command.scope} command)`]),
    ...sources.skills.filter((skill) => skill.userInvocable).map((skill): [string, string] => [usage(skill.name, skill.argumentHint), `${skill.description} (${skill.plugin ? `plugin ${skill.plugin}` : skill.scope} skill)`]),
  ].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const names = new Set([...sources.commands.map((command) => command.name), ...sources.skills.filter((skill) => skill.userInvocable).map((skill) => skill.name)]);
  // A built-in a user's own command replaces is listed as theirs.
  const reports = REPORT_HELP.filter(([name]) => !names.has(name)).map(([, usage, description]): [string, string] => [usage, description]);
  const prompts = BUILTIN_PROMPTS.filter((builtin) => !names.has(builtin.name)).map((builtin): [string, string] => [builtin.usage, builtin.description]);
  const lines = ["Built-in commands:", ...[...BUILTIN_HELP, ...reports, ...prompts].map(line)];
  if (custom.length > 0) lines.push("", "Custom commands and skills:", ...custom.map(line));
  const mcp = (sources.mcpPrompts ?? []).map((command): [string, string] => [promptUsage(command), `${command.description ?? "a prompt"} (MCP server ${command.server})`]);
  if (mcp.length > 0) lines.push("", "Prompts of MCP servers:", ...mcp.map(line));
  const plugins = (sources.plugins ?? []).map((plugin): [string, string] => [plugin.version ? `${plugin.name} ${plugin.version}` : plugin.name, `${plugin.description ? `${plugin.description} ` : ""}(${plugin.root})`]);
  if (plugins.length > 0) lines.push("", "Plugins:", ...plugins.map(line));
  return lines.join("\n");
}

function usage(name: string, hint: string | undefined): string {
  return hint ? `/${name} ${hint}` : `/${name}`;
}

function line([left, right]: [string, string]): string {
  return `  ${left} — ${right.replace(/\s+/g, " ")}`;
}
