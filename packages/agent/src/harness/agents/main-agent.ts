// The main thread run as an agent (Claude Code's --agent, or the settings' `agent`): the agent's
// prompt in place of the built-in one, its tools, its model and its permission mode.
import type { PermissionContext, PermissionMode } from "../../permissions/types.ts";
import { claudeAlias } from "../../subagents/agent-model.ts";
import { TASK_TOOL_NAME, taskTool } from "../../subagents/task-tool.ts";
import type { AgentDefinition } from "../../subagents/types.ts";
import type { RunAgentOptions, Tool } from "../../types.ts";
import type { RunSetup } from "../setup/setup.ts";

export type MainAgent = { ok: true; agent?: AgentDefinition } | { ok: false; error: string };

/** The agent the run's options name, else the settings' `agent`; none when neither names one. */
export function mainAgentOf(options: Pick<RunAgentOptions, "mainAgent">, setup: Pick<RunSetup, "settings" | "agents">): MainAgent {
  const fromSettings = typeof setup.settings.agent === "string" ? setup.settings.agent.trim() : "";
  const name = options.mainAgent?.trim() || fromSettings;
  if (!name) return { ok: true };
  const agent = setup.agents.find((candidate) => candidate.name === name);
  if (agent) return { ok: true, agent };
  const known = setup.agents.map((candidate) => candidate.name).join(", ") || "none";
  // Named as Claude Code's flag: the option is what `harness run --agent` passes.
  if (options.mainAgent?.trim()) return { ok: false, error: `--agent: there is no agent named "${name}" (the agents: ${known})` };
  return { ok: false, error: `there is no agent named "${name}", which the settings' "agent" names (the agents: ${known})` };
}

/** The options of a run as `agent`: its prompt, unless the run gives its own system prompt, and its
 * model, unless the run names one ("inherit" keeps the run's). `runModel` is the model the run uses
 * otherwise: an alias (sonnet, opus, haiku) stands for a Claude model only when that is one, as for a
 * sub-agent, since its provider may serve no Claude model. */
export function asMainAgent(options: RunAgentOptions, agent: AgentDefinition, runModel: string): RunAgentOptions {
  const wanted = agent.model?.trim();
  const aliased = wanted !== undefined && claudeAlias(wanted, options.env ?? process.env) !== undefined;
  const model = wanted && wanted.toLowerCase() !== "inherit" && (!aliased || /claude/i.test(runModel)) ? wanted : undefined;
  return {
    ...options,
    ...(!options.systemPrompt && { systemPrompt: agent.systemPrompt }),
    ...(options.model === undefined && model !== undefined && { model }),
  };
}

/** Sets the run's permission mode as `agent`'s: the run's own (--permission-mode) when it names one,
 * else the agent's, else the settings' default, as Claude Code ranks them. Never looser than the
 * harness allows: a project's agent file (it comes with the repository, whose settings can name it
 * as `agent`) cannot choose bypassPermissions, nor any agent where the settings turned it off; what
 * is not given is said. */
export function applyMainAgentMode(permissions: PermissionContext, agent: AgentDefinition, given: PermissionMode | undefined, warn: (message: string) => void): void {
  const wanted = agent.permissionMode;
  if (given !== undefined || wanted === undefined) return;
  if (wanted === "bypassPermissions" && (agent.source === "project" || permissions.bypassDisabled)) {
    const why = agent.source === "project" ? "a project's agent file cannot choose it" : "the settings turned it off";
    warn(`The agent ${agent.name} runs in ${permissions.mode} mode, not ${wanted}: ${why}.`);
    return;
  }
  permissions.mode = wanted;
}

/** The tools of the main thread as `agent`: those it lists (all when it lists none), without those
 * it disallows. As in Claude Code, the main thread's agent lists Task as Agent (or Task), and
 * Agent(worker, researcher) lets it start only the agents of those types. */
export function mainAgentTools(tools: Tool[], agent: AgentDefinition | undefined, agents: readonly AgentDefinition[] = []): Tool[] {
  if (!agent) return tools;
  const removed = new Set((agent.disallowedTools ?? []).map((entry) => (entry === "Agent" ? TASK_TOOL_NAME : entry)));
  const listed = agent.tools === undefined ? undefined : new Set(agent.tools.map((entry) => (SPAWN_ENTRY.test(entry.trim()) ? TASK_TOOL_NAME : entry)));
  const types = spawnableTypes(agent.tools);
  return tools.flatMap((tool) => {
    if ((listed !== undefined && !listed.has(tool.name)) || removed.has(tool.name)) return [];
    if (tool.name === TASK_TOOL_NAME && types !== undefined) return [taskTool(agents.filter((candidate) => types.has(candidate.name)))];
    return [tool];
  });
}

/** Agent or Task, bare or with the agent types it may start in parentheses. */
const SPAWN_ENTRY = /^(Agent|Task)\s*(?:\((.*)\))?$/s;

/** The agent types Agent(…) (or Task(…)) entries of `tools` name; undefined when any type may be
 * started (the tools are not listed, or Agent is listed bare). */
function spawnableTypes(tools: readonly string[] | undefined): Set<string> | undefined {
  if (tools === undefined) return undefined;
  const types = new Set<string>();
  for (const entry of tools) {
    const match = SPAWN_ENTRY.exec(entry.trim());
    if (!match) continue;
    if (match[2] === undefined) return undefined;
    for (const type of match[2].split(",")) if (type.trim() !== "") types.add(type.trim());
  }
  return types;
}
