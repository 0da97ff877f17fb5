import type { PermissionMode } from "../permissions/types.ts";
import type { AgentDefinition } from "./types.ts";

/** The permission mode a sub-agent's tool calls are checked in. As in Claude Code, a parent in
 * bypassPermissions passes that on to user-defined agents, whatever their definition says; otherwise
 * the definition's mode applies, else the parent's. The built-in read-only agents (Explore, Plan)
 * always stay in "plan", so their Bash runs read-only commands only. Never looser than the harness
 * allows: a parent that is planning has its sub-agents plan too; a project's agent file (it comes
 * with the repository, as its settings do) cannot choose bypassPermissions, nor any agent where the
 * settings turned it off (`bypassDisabled`). `dropped`: the definition asked for a mode it was not
 * given. */
export function subagentPermissionMode(
  parentMode: PermissionMode,
  agent: AgentDefinition,
  limits: { bypassDisabled?: boolean } = {},
): { mode: PermissionMode; dropped?: PermissionMode } {
  if (agent.source === "built-in" && agent.permissionMode === "plan") return { mode: "plan" };
  if (parentMode === "plan") return agent.permissionMode === undefined || agent.permissionMode === "plan" ? { mode: "plan" } : { mode: "plan", dropped: agent.permissionMode };
  if (parentMode === "bypassPermissions") return { mode: parentMode };
  const wanted = agent.permissionMode ?? parentMode;
  if (wanted === "bypassPermissions" && (agent.source === "project" || limits.bypassDisabled)) return { mode: parentMode, dropped: wanted };
  return { mode: wanted };
}
