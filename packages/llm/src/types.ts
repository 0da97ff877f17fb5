// One normalized event stream over every model provider. A provider never throws from stream():
// failures (HTTP errors after retries, a broken stream, an abort) end the stream with a `done`
// event whose stopReason says what happened — failures are values.
import type { Usage } from "@harness/protocol";

export type TextBlock = { type: "text"; text: string; cache_control?: { type: "ephemeral" } };
export type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };
export type ToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content: string | TextBlock[];
  is_error?: boolean;
};
export type ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock;

/** A conversation message in Anthropic Messages form (the transcript format of the whole system). */
export type ModelMessage = { role: "user" | "assistant"; content: string | ContentBlock[] };

export type ToolSchema = { name: string; description: string; input_schema: Record<string, unknown> };

export type ModelRequest = {
  model: string;
  system?: string | TextBlock[];
  messages: ModelMessage[];
  tools?: ToolSchema[];
  maxTokens?: number;
  signal?: AbortSignal;
};

export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "refusal"
  | "pause_turn"
  | "error" // the request failed after retries, or the stream broke
  | "aborted"; // the signal fired

export type ModelEvent =
  | { type: "text-delta"; text: string }
  /** A tool_use block began; its input streams as partial JSON. */
  | { type: "tool-call-start"; id: string; name: string }
  | { type: "tool-call-delta"; id: string; partialJson: string }
  /** The block is complete; `input` is the parsed JSON (an empty object when the model sent none). */
  | { type: "tool-call-end"; id: string; name: string; input: Record<string, unknown> }
  /** A failed attempt is retried after `delayMs`; nothing from the failed attempt was emitted.
   * `attempt` is the number of the attempt that failed (1 for the first request). */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  /** Always the last event. `message` is the assistant message as it should enter the transcript.
   * After "error" or "aborted" it holds what was produced so far: its text and the tool calls whose
   * input was complete (a tool_use without a tool_result yet); `errorMessage` says what failed. */
  | { type: "done"; stopReason: StopReason; message: ModelMessage; usage: Usage; errorMessage?: string };

export interface Provider {
  readonly name: string;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}
