export { HarnessClient, createHarnessClient, SESSION_DELETED_CLOSE_CODE } from "./client.ts";
export type {
  ClientEvents,
  ClientOptions,
  ConnectionStatus,
  ServerError,
  WebSocketFactory,
  WebSocketLike,
} from "./client.ts";
export type { HarnessCommand, HarnessConfig, HarnessMessage, HarnessState, HarnessToolCall } from "@harness/protocol";
