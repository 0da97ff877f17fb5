// What one headless run in this process needs (`harness run`): the builtin backend and a context
// for it, without the runner server, client and other backends the package index brings along.
export { headlessContext } from "./backend.ts";
export { builtinBackend } from "./backends/builtin.ts";
export type { ApprovalDecision, ApprovalRequest, BackendContext, RunOutcome } from "./backend.ts";
export { startProcessTelemetry, stopTelemetry, TELEMETRY_EXIT_BOUND_MS, withTelemetry } from "./telemetry/active.ts";
