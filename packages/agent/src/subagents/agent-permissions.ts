import type { PermissionMode } from "../permissions/types.ts";
import type { AgentDefinition } from "./types.ts";

/** The permission mode a sub-agent's tool calls are checked in. As in Claude Code, a parent in
 * bypassPermissions passes that on to user-defined agents, whatever their definition says; otherwise
 * the definition's mode applies, else the parent's. The built-in read-only agents (Explore, Plan)
 * always stay in "plan", so their Bash runs read-only commands only. */
export function subagentPermissionMode(parentMode: PermissionMode, agent: AgentDefinition): PermissionMode {
  if (agent.source === "built-in" && agent.permissionMode === "plan") return "plan";
  if (parentMode === "bypassPermissions") return parentMode;
  return agent.permissionMode ?? parentMode;
}
