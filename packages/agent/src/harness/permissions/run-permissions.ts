// The permission contexts of one run's agents that are alive at once: the main agent's and those of
// its running sub-agents. Each agent has its own context (its mode, the allowed-tools of a skill it
// loaded), but the session's rules are one set, as in Claude Code: an update approved in any agent
// ("Yes, and don't ask again") holds from then on for all of them.
import { applyReadUpdates, type ReadUpdate, type UpdateWhere } from "../../permissions/updates.ts";
import type { PermissionContext } from "../../permissions/types.ts";

export type RunPermissions = Set<PermissionContext>;

/** Adds a running sub-agent's `permissions` to its run's; the returned function takes them out
 * once it has ended. */
export function joinRunPermissions(run: RunPermissions, permissions: PermissionContext): () => void {
  run.add(permissions);
  return () => run.delete(permissions);
}

/** Applies `updates`, approved in the agent whose context is `own`, to `own` and to every other
 * context of `run`, each in place (the tool gates, hooks and tools read those very objects). A mode
 * set stays the approving agent's: a sub-agent's mode is its own, and the others keep theirs.
 * `updates` are read once (readPermissionUpdates) for every context. Returns what could not be
 * applied, once. */
export function applyToRun(own: PermissionContext, run: RunPermissions, updates: readonly ReadUpdate[], where: UpdateWhere): string[] {
  const applied = applyReadUpdates(own, updates, where);
  Object.assign(own, applied.permissions);
  const shared = updates.filter(({ update }) => update.type !== "setMode");
  if (shared.length === 0) return applied.errors;
  for (const other of run) if (other !== own) Object.assign(other, applyReadUpdates(other, shared, where).permissions);
  return applied.errors;
}
