// The wire's permission modes and the runner's (Claude Code's): the wire calls "bypassPermissions"
// "fullAuto", and has no name for "plan".
import type { DeltaOperation, HarnessConfig, JSONValue, RunnerPermissionMode } from "@harness/protocol";

type WireMode = NonNullable<HarnessConfig["permissionMode"]>;

/** The runner's name for a mode of the wire. */
export function runnerMode(mode: WireMode): RunnerPermissionMode {
  return mode === "fullAuto" ? "bypassPermissions" : mode;
}

/** The wire's name for a runner's mode; undefined for plan mode, which the wire does not name. */
export function wireMode(mode: RunnerPermissionMode): WireMode | undefined {
  return mode === "bypassPermissions" ? "fullAuto" : mode === "plan" ? undefined : mode;
}

/** What makes `config` say the mode `mode`, or none when it is undefined; the rest of it stays. */
export function configModeOps(config: HarnessConfig | undefined, mode: WireMode | undefined): DeltaOperation[] {
  if (config?.permissionMode === mode) return [];
  if (mode === undefined) {
    const { permissionMode: _unset, ...rest } = config!;
    return [{ type: "set", path: ["config"], value: rest as JSONValue }];
  }
  if (!config) return [{ type: "set", path: ["config"], value: { permissionMode: mode } }];
  return [{ type: "set", path: ["config", "permissionMode"], value: mode }];
}
