// Task calls run sub-agents through the same loop, on the parent's configuration.
import { environmentBlock } from "../../context/environment.ts";
import { subagentPermissionMode } from "../../subagents/agent-permissions.ts";
import type { SubagentSpawnerDeps } from "../../subagents/spawn-subagent.ts";
import { TASK_TOOL_NAME, type SubagentSpawner } from "../../subagents/task-tool.ts";
import type { AgentDefinition } from "../../subagents/types.ts";
import { EXIT_PLAN_MODE_TOOL_NAME } from "../../plan-mode/texts.ts";
import type { RunAgentOptions, RunAgentResult, Tool } from "../../types.ts";
import { wholeToolDenial } from "../../permissions/match-rule.ts";
import { mcpToolName } from "../../mcp/names.ts";
import { LIST_RESOURCES_TOOL } from "../../mcp/resource-names.ts";
import { subagentModelResolver } from "../model/model.ts";
import type { NoticeSink } from "../resources.ts";
import type { RunContext } from "../run-context.ts";

/** `runChild` runs a sub-agent's options with `parent`'s configuration (see subagentRunContext). */
export function subagentSpawner(parent: RunContext, runChild: (options: RunAgentOptions) => Promise<RunAgentResult>): SubagentSpawner {
  const git = parent.setup.git;
  const deps: SubagentSpawnerDeps = {
    runAgent: (options) => withOwnServers(parent, options, runChild),
    // Read at each spawn: a model or mode changed mid-run holds for the sub-agents started after.
    get parent() {
      return { ...parent.options, model: parent.model, provider: parent.provider, permissionMode: parent.permissions.mode };
    },
    allTools: parent.tools,
    resolveModel: subagentModelResolver(parent.options, parent.setup.availableModels),
    environment: ({ cwd, model }) => environmentBlock({ cwd, model, ...(git && { git }), additionalDirectories: parent.permissions.additionalDirectories }),
    configure: (options, agent) => {
      const { mode, dropped } = subagentPermissionMode(parent.permissions.mode, agent, { bypassDisabled: parent.permissions.bypassDisabled === true });
      if (dropped) {
        const why = parent.permissions.mode === "plan" ? "while the conversation is in plan mode" : agent.source === "project" ? "a project's agent file cannot choose it" : "the settings turned it off";
        parent.notice("warning", `The agent ${agent.name} runs in ${mode} mode, not ${dropped}: ${why}.`);
      }
      const missing = unknownTools(agent, parent.tools).filter((name) => !wholeToolDenial(parent.permissions, name));
      if (missing.length > 0) {
        parent.notice("warning", `The agent ${agent.name} (${agent.file ?? "built-in"}) lists tools this run does not have, and runs without them: ${missing.join(", ")}. Tool names are case-sensitive, such as Read, Grep, Bash.`);
      }
      return { ...options, permissionMode: mode };
    },
  };
  let spawn: SubagentSpawner | undefined;
  return async (request, ctx) => {
    // Imported with the first Task call: a run that starts no sub-agent starts sooner without it.
    spawn ??= (await import("../../subagents/spawn-subagent.ts")).createSubagentSpawner(deps);
    return spawn(request, ctx);
  };
}

/** Runs `options`' sub-agent with the MCP servers of its definition (see subagentMcp): those it
 * defines are closed once it has ended. */
async function withOwnServers(parent: RunContext, options: RunAgentOptions, runChild: (options: RunAgentOptions) => Promise<RunAgentResult>): Promise<RunAgentResult> {
  const agent = options.agent && parent.setup.agents.find((candidate) => candidate.name === options.agent!.type);
  if (!agent?.mcpServers) return runChild(options);
  const notice: NoticeSink = (level, message) => options.emit({ type: "notice", level, message });
  const given = options.tools ?? [];
  const readsRunResources = given.some((tool) => tool.name === LIST_RESOURCES_TOOL);
  // Imported for an agent with servers only: a run without any starts sooner without it.
  const { subagentMcp } = await import("../mcp/subagent-mcp.ts");
  const mcp = await subagentMcp(agent, { tools: parent.tools, readsRunResources }, parent.setup.subagentMcp, options.signal, notice);
  try {
    // Its servers' tools take the place of those of the same name it was given: the resource tools
    // then read its own servers' resources besides the run's.
    const byName = new Map(mcp.tools.map((tool) => [tool.name, tool]));
    const tools = [...given.map((tool) => byName.get(tool.name) ?? tool), ...mcp.tools.filter((tool) => !given.some((had) => had.name === tool.name))];
    return await runChild({ ...options, tools });
  } finally {
    await mcp.close();
  }
}

/** The names in `agent`'s tools that name none of the run's tools (a typo, "read" for Read, a
 * permission rule such as Bash(git:*), a tool of an MCP server that is not connected). Task and
 * ExitPlanMode, which only the main agent has, are left out of the count; the caller leaves out the
 * tools a deny rule took away. */
function unknownTools(agent: AgentDefinition, tools: readonly Tool[]): string[] {
  const names = new Set(tools.map((tool) => tool.name));
  // Tools of the servers it defines are known once they start, with it.
  const own = (agent.mcpServers ?? []).filter((server) => server.config !== undefined).map((server) => mcpToolName(server.name, ""));
  return (agent.tools ?? []).filter((name) => !names.has(name) && name !== TASK_TOOL_NAME && name !== EXIT_PLAN_MODE_TOOL_NAME && !own.some((prefix) => name.startsWith(prefix)));
}
