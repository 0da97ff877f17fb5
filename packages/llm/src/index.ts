export type {
  ContentBlock,
  ModelEvent,
  ModelMessage,
  ModelRequest,
  Provider,
  StopReason,
  TextBlock,
  ToolResultBlock,
  ToolSchema,
  ToolUseBlock,
} from "./types.ts";
