// Task calls run sub-agents through the same loop, on the parent's configuration.
import { environmentBlock } from "../context/environment.ts";
import { subagentPermissionMode } from "../subagents/agent-permissions.ts";
import { createSubagentSpawner } from "../subagents/spawn-subagent.ts";
import type { SubagentSpawner } from "../subagents/task-tool.ts";
import type { RunAgentOptions, RunAgentResult } from "../types.ts";
import { subagentModelResolver } from "./model.ts";
import type { RunContext } from "./run-context.ts";

/** `runChild` runs a sub-agent's options with `parent`'s configuration (see subagentRunContext). */
export function subagentSpawner(parent: RunContext, runChild: (options: RunAgentOptions) => Promise<RunAgentResult>): SubagentSpawner {
  const git = parent.setup.git;
  return createSubagentSpawner({
    runAgent: runChild,
    // Read at each spawn: a model or mode changed mid-run holds for the sub-agents started after.
    get parent() {
      return { ...parent.options, model: parent.model, provider: parent.provider, permissionMode: parent.permissions.mode };
    },
    allTools: parent.tools,
    resolveModel: subagentModelResolver(parent.options),
    environment: ({ cwd, model }) => environmentBlock({ cwd, model, ...(git && { git }) }),
    configure: (options, agent) => {
      const { mode, dropped } = subagentPermissionMode(parent.permissions.mode, agent, { bypassDisabled: parent.permissions.bypassDisabled === true });
      if (dropped) {
        const why = parent.permissions.mode === "plan" ? "while the conversation is in plan mode" : agent.source === "project" ? "a project's agent file cannot choose it" : "the settings turned it off";
        parent.notice("warning", `The agent ${agent.name} runs in ${mode} mode, not ${dropped}: ${why}.`);
      }
      return { ...options, permissionMode: mode };
    },
  });
}
