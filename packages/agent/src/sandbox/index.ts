export { sandboxSettingsSchema, type SandboxSettings } from "./settings.ts";
export { PROTECTED_PATHS, isExcluded, runsInSandbox, sandboxPolicy, type PolicyPlaces, type SandboxPolicy } from "./policy.ts";
export { sandboxUnavailable, stopSandbox, wrapInSandbox, type SandboxedCommand } from "./runtime.ts";
