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
    parent: { ...parent.options, model: parent.model, provider: parent.provider, permissionMode: parent.permissions.mode },
    allTools: parent.tools,
    resolveModel: subagentModelResolver(parent.options),
    environment: ({ cwd, model }) => environmentBlock({ cwd, model, ...(git && { git }) }),
    configure: (options, agent) => ({ ...options, permissionMode: subagentPermissionMode(parent.permissions.mode, agent) }),
  });
}
