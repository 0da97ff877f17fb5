export { HarnessClient, createHarnessClient, SESSION_DELETED_CLOSE_CODE } from "./client.ts";
export { createSessionsApi, SessionsApiError } from "./sessions.ts";
export type { ForkResult, SessionsApi, SessionsApiOptions, SessionSummary } from "./sessions.ts";
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
  ServerMessage,
  Usage,
} from "@harness/protocol";
