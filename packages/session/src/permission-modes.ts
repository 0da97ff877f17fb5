// The wire's permission modes and the runner's (Claude Code's): the wire calls "bypassPermissions"
// "fullAuto", and has no name for "plan".
import type { HarnessConfig, RunnerPermissionMode } from "@harness/protocol";

type WireMode = NonNullable<HarnessConfig["permissionMode"]>;

/** The runner's name for a mode of the wire. */
export function runnerMode(mode: WireMode): RunnerPermissionMode {
  return mode === "fullAuto" ? "bypassPermissions" : mode;
}

/** The wire's name for a runner's mode; undefined for plan mode, which the wire does not name. */
export function wireMode(mode: RunnerPermissionMode): WireMode | undefined {
  return mode === "bypassPermissions" ? "fullAuto" : mode === "plan" ? undefined : mode;
}
