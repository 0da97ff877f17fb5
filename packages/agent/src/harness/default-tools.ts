// The tools a run offers the model when it brings none of its own (RunAgentOptions.tools), less
// those a deny rule withholds: what the main run starts from, and what an inspector (the server's
// tools listing) shows of a session's runs.
import { wholeToolDenial } from "../permissions/match-rule.ts";
import { canonicalToolName } from "../permissions/tool-names.ts";
import type { PermissionContext } from "../permissions/types.ts";
import { exitPlanModeTool } from "../plan-mode/exit-plan-mode.ts";
import { skillTool } from "../skills/skill-tool.ts";
import type { Skill } from "../skills/types.ts";
import { taskOutputTool, taskStopTool } from "../subagents/background-task-tools.ts";
import { taskTool } from "../subagents/task-tool.ts";
import { bashToolFor } from "../tools/shell/bash.ts";
import { builtinTools } from "../tools/index.ts";
import type { RunAgentOptions, Tool } from "../types.ts";
import type { RunSetup } from "./setup/setup.ts";

/** What of a run's setup decides its tools: whether its configuration was loaded, the environment
 * Bash reads its limits from, whether the sandbox is on (`permissions.sandbox` set: its policy),
 * its agents (Task's description), its skills (whether Skill is there) and its MCP servers' tools. */
export type DefaultToolsSetup = Pick<RunSetup, "loaded" | "harnessEnv" | "childEnv" | "agents" | "skills" | "sessionId" | "mcpTools" | "lsp"> & {
  permissions: { sandbox?: unknown };
};

/** The built-in tools and ExitPlanMode; with loaded configuration also Task, Skill (when a skill is
 * there for the model), LSP (when a plugin declares language servers: the edit tools then report
 * their new diagnostics) and the MCP servers' tools. ExitPlanMode is there in every mode, as in Claude
 * Code: the tools, and so the cached prompt prefix, stay the same when plan mode ends. */
export function defaultTools(setup: DefaultToolsSetup, options: Pick<RunAgentOptions, "builtinTools">, onSkill?: (skill: Skill) => (() => void) | void): Tool[] {
  const sandboxed = setup.permissions.sandbox !== undefined;
  const bash = bashToolFor(setup.harnessEnv ?? setup.childEnv ?? process.env, sandboxed);
  const builtins = [...builtinTools().map((tool) => (tool.name === "Bash" ? bash : tool)), exitPlanModeTool];
  if (!setup.loaded) return chosen(builtins, options.builtinTools);
  const edited = setup.lsp ? setup.lsp.tools(builtins) : builtins;
  const tools = [...edited, taskTool(setup.agents), taskOutputTool, taskStopTool];
  if (setup.skills.some((skill) => !skill.disableModelInvocation)) tools.push(skillTool(setup.skills, onSkill, setup.agents, setup.sessionId));
  return [...chosen(tools, options.builtinTools), ...setup.mcpTools];
}

/** `tools` split: those a tool-wide deny rule names (`WebFetch`, `mcp__server`) are withheld, as in
 * Claude Code the model is not offered them at all, and a call of one by name finds no such tool. */
export function offered(all: Tool[], permissions: PermissionContext): { tools: Tool[]; withheld: Tool[] } {
  const tools: Tool[] = [];
  const withheld: Tool[] = [];
  for (const tool of all) (wholeToolDenial(permissions, tool.name) ? withheld : tools).push(tool);
  return { tools, withheld };
}

/** The tools `names` lists (RunAgentOptions.builtinTools: Agent is Task), or all without a list. */
function chosen(tools: Tool[], names: readonly string[] | undefined): Tool[] {
  if (names === undefined) return tools;
  const wanted = new Set(names.map(canonicalToolName));
  return tools.filter((tool) => wanted.has(tool.name));
}
