export { HarnessClient, createHarnessClient, SESSION_DELETED_CLOSE_CODE } from "./client.ts";
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
