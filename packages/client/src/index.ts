export { HarnessClient, createHarnessClient, SESSION_DELETED_CLOSE_CODE } from "./client.ts";
export { createSessionsApi, SessionsApiError } from "./sessions.ts";
export type { SessionsApi, SessionsApiOptions } from "./sessions.ts";
export { RunRefusedError } from "./run.ts";
export type { RunOptions, RunResult } from "./run.ts";
export type { ApprovalAnswer, ApprovalRequest, OnApproval } from "./approvals.ts";
export type { ConfigureResult } from "./configure.ts";
export type { ForkResult, SessionRead, SessionSummary } from "@harness/protocol";
export type {
  ClientEvents,
  ClientOptions,
  ConnectionStatus,
  ServerError,
  WebSocketFactory,
  WebSocketLike,
} from "./client.ts";
export type {
  DeltaOperation,
  HarnessCommand,
  HarnessConfig,
  HarnessMessage,
  HarnessState,
  HarnessToolCall,
  JSONValue,
  Notice,
  RewindPreview,
  RunAvailable,
  ServerMessage,
  Usage,
} from "@harness/protocol";
