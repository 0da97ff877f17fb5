import type { PermissionContext } from "./types.ts";

/** Why `permissions` may not be switched to bypassPermissions, as Claude Code refuses it: the
 * settings forbid it, or the run was not started able to bypass. Undefined when it may. The one
 * rule for every switch: an approval's setMode and the control protocol's set_permission_mode. */
export function bypassRefusal(permissions: Pick<PermissionContext, "bypassDisabled" | "bypassAvailable">): string | undefined {
  if (permissions.bypassDisabled) return "the settings forbid bypassPermissions (disableBypassPermissionsMode)";
  if (!permissions.bypassAvailable) return "bypassPermissions needs the run started with --dangerously-skip-permissions or --allow-dangerously-skip-permissions (the Agent SDK's allowDangerouslySkipPermissions)";
  return undefined;
}
