import path from "node:path";
import type { PermissionContext, PermissionMode } from "../permissions/types.ts";
import type { LoadedSettings } from "./types.ts";

export const BYPASS_DISABLED = "bypassPermissions is turned off by the settings (disableBypassPermissionsMode); the run asks as in default mode.";

/** The permission context for a run from loaded settings. `mode` (e.g. from the client) overrides
 * the settings' defaultMode; `additionalDirectories` (e.g. `--add-dir`) add to the settings' own. */
export function permissionContext(
  loaded: LoadedSettings,
  o: { cwd: string; home: string; mode?: PermissionMode; additionalDirectories?: readonly string[] },
): PermissionContext {
  const extra = (o.additionalDirectories ?? []).map((dir) => path.resolve(o.cwd, dir));
  const wanted = o.mode ?? loaded.permissions.defaultMode ?? "default";
  const bypassDisabled = loaded.locks?.bypassDisabled === true;
  return {
    mode: wanted === "bypassPermissions" && bypassDisabled ? "default" : wanted,
    ...(bypassDisabled && { bypassDisabled }),
    ...(loaded.locks?.managedRulesOnly && { managedRulesOnly: true }),
    rules: { allow: loaded.permissions.allow, ask: loaded.permissions.ask, deny: loaded.permissions.deny },
    cwd: path.resolve(o.cwd),
    home: o.home,
    additionalDirectories: [...new Set([...loaded.permissions.additionalDirectories, ...extra])],
  };
}
