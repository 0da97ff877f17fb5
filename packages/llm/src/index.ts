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
export { createAnthropicProvider } from "./anthropic-provider.ts";
export type { AnthropicProviderOptions } from "./anthropic-provider.ts";
export { defaultModel, DEFAULT_MAX_TOKENS, DEFAULT_MODEL } from "./settings.ts";
export type { EnvLike } from "./settings.ts";
