export type { Backend, BackendContext, RunOutcome } from "./backend.ts";
export { builtinBackend, MISSING_KEY_MESSAGE } from "./backends/builtin.ts";
export type { BuiltinBackendOptions } from "./backends/builtin.ts";
export { createRunnerServer, createRunnerHandler, BUSY_MESSAGE, MAX_QUERY_BYTES } from "./server.ts";
export type { RunnerHandler, RunnerServerOptions } from "./server.ts";
export { createRunnerClient, RunnerHttpError } from "./client.ts";
export type { RunnerClient } from "./client.ts";
export { createSseParser } from "./sse-parser.ts";
export type { SseMessage } from "./sse-parser.ts";
