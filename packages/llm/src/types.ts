// One normalized event stream over every model provider. A provider never throws from stream():
// failures (HTTP errors after retries, a broken stream, an abort) end the stream with a `done`
// event whose stopReason says what happened — failures are values.
import type { Usage } from "@harness/protocol";
import type { ModelErrorKind } from "./retry/error-kind.ts";

/** A prompt-cache breakpoint (Anthropic): everything up to and including the marked block is cached.
 * Providers without prompt caching drop it. */
export type CacheControl = { type: "ephemeral"; ttl?: "5m" | "1h" };

/** `citations`: where a web search answer's text comes from (the pages it cites). */
export type TextBlock = { type: "text"; text: string; cache_control?: CacheControl; citations?: WebSearchCitation[] };
export type WebSearchCitation = { type: "web_search_result_location"; url: string; title: string | null; cited_text: string; encrypted_index: string };
export type ImageBlock = {
  type: "image";
  source: { type: "base64"; media_type: "image/jpeg" | "image/png" | "image/gif" | "image/webp"; data: string } | { type: "url"; url: string };
  cache_control?: CacheControl;
};
/** A PDF for the model to read: its text and each page as an image. In a user message or a tool
 * result; the Anthropic API takes at most 100 pages and 32 MB a request. */
export type DocumentBlock = {
  type: "document";
  source: { type: "base64"; media_type: "application/pdf"; data: string };
  title?: string;
  cache_control?: CacheControl;
};
export type ToolUseBlock = { type: "tool_use"; id: string; name: string; input: Record<string, unknown>; cache_control?: CacheControl };
export type ToolResultBlock = {
  type: "tool_result";
  tool_use_id: string;
  content: string | (TextBlock | ImageBlock | DocumentBlock)[];
  is_error?: boolean;
  cache_control?: CacheControl;
};
/** The model's reasoning. `signature` authenticates it: the block must go back to the model
 * unchanged, signature included, in the assistant message it came in. */
export type ThinkingBlock = { type: "thinking"; thinking: string; signature: string };
/** Reasoning the API returns encrypted; like ThinkingBlock it goes back unchanged. */
export type RedactedThinkingBlock = { type: "redacted_thinking"; data: string };
/** A search the model made with Anthropic's server-side web search tool (see ModelRequest.webSearch);
 * the API ran it, and its outcome follows as a WebSearchToolResultBlock. */
export type ServerToolUseBlock = { type: "server_tool_use"; id: string; name: string; input: Record<string, unknown>; cache_control?: CacheControl };
export type WebSearchResultItem = { type: "web_search_result"; title: string; url: string; encrypted_content: string; page_age?: string | null };
/** `error_code`: max_uses_exceeded, too_many_requests, invalid_input, query_too_long, unavailable. */
export type WebSearchToolResultError = { type: "web_search_tool_result_error"; error_code: string };
export type WebSearchToolResultBlock = { type: "web_search_tool_result"; tool_use_id: string; content: WebSearchResultItem[] | WebSearchToolResultError; cache_control?: CacheControl };
export type ContentBlock =
  | TextBlock
  | ImageBlock
  | DocumentBlock
  | ToolUseBlock
  | ToolResultBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | ServerToolUseBlock
  | WebSearchToolResultBlock;

/** A conversation message in Anthropic Messages form (the transcript format of the whole system). */
export type ModelMessage = { role: "user" | "assistant"; content: string | ContentBlock[] };

export type ToolSchema = { name: string; description: string; input_schema: Record<string, unknown>; cache_control?: CacheControl };

/** How hard the model should think. Anthropic: a thinking budget (unless `thinking` is given);
 * OpenAI-compatible: `reasoning_effort`. */
export type Effort = "low" | "medium" | "high" | "max";

export type ModelRequest = {
  model: string;
  system?: string | TextBlock[];
  messages: ModelMessage[];
  tools?: ToolSchema[];
  maxTokens?: number;
  /** Extended thinking with at most this many tokens of reasoning (Anthropic; at least 1024, and
   * kept below max_tokens). */
  thinking?: { budgetTokens: number };
  effort?: Effort;
  /** Offers the model Anthropic's server-side web search tool (web_search_20250305): the API
   * searches as the model asks, and the reply holds the searches (ServerToolUseBlock,
   * WebSearchToolResultBlock) and text citing what was found. Served by the Anthropic API and
   * Vertex AI; other providers end the stream at once with an error saying so. */
  webSearch?: WebSearchTool;
  signal?: AbortSignal;
};

/** The options of the web search tool; give allowed or blocked domains, not both. */
export type WebSearchTool = { maxUses?: number; allowedDomains?: string[]; blockedDomains?: string[] };

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
  /** The text this call streamed so far, all of it (`text`), was the model's reasoning, not its
   * reply: a reply whose chat template opened <think> in the prompt shows it only when </think>
   * comes (see openai/think-tags.ts). It comes again at once as thinking-delta; `done.message`
   * has it as thinking. */
  | { type: "text-withdrawn"; text: string }
  /** Reasoning text as it streams. The whole reasoning is in `done.message` as a thinking block
   * when the provider can take it back (Anthropic); reasoning from OpenAI-compatible servers is
   * shown only. */
  | { type: "thinking-delta"; text: string }
  /** A tool_use block began; its input streams as partial JSON. */
  | { type: "tool-call-start"; id: string; name: string }
  | { type: "tool-call-delta"; id: string; partialJson: string }
  /** The block is complete; `input` is the parsed JSON (an empty object when the model sent none).
   * When what the model sent is not a JSON object (cut off by max_tokens, say), `input` is empty
   * and `inputError` says what was wrong: the call must be answered with that error, not run. */
  | { type: "tool-call-end"; id: string; name: string; input: Record<string, unknown>; inputError?: string }
  /** A failed attempt is retried after `delayMs`; nothing from the failed attempt was emitted.
   * `attempt` is the number of the attempt that failed (1 for the first request); `maxAttempts`, how
   * many are made at most; `code`, the failure's code when the service said (the HTTP status, or
   * the stream error's type). */
  | { type: "retry"; attempt: number; delayMs: number; reason: string; maxAttempts?: number; code?: string }
  /** Something the user should know about the request that does not stop it (the API deprecating
   * the model). Said once per provider (one is made for each run). */
  | { type: "warning"; message: string }
  /** Always the last event. `message` is the assistant message as it should enter the transcript.
   * After "error" or "aborted" it holds what was produced so far: its text, its complete thinking
   * blocks and the tool calls whose input was complete (a tool_use without a tool_result yet);
   * `errorMessage` says what failed; `refusal`, why the model declined (stop reason refusal), when
   * the API said; `abandonedUsage`, what the attempts given up on before this one used (billed too,
   * but no measure of this request). `usage.costUsd` is the price of this call; when the
   * model's price is not known it is absent and `usage.unpricedCalls` is 1. */
  | { type: "done"; stopReason: StopReason; message: ModelMessage; usage: Usage; abandonedUsage?: Usage; errorMessage?: string; error?: ModelErrorInfo; refusal?: string };

/** What kind of failure ended a request (stop reason "error"), when the service said: its class,
 * and its code (the HTTP status, or the stream error's type). */
export type ModelErrorInfo = { kind: ModelErrorKind; code?: string };

export interface Provider {
  readonly name: string;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
  /** Whether a call of `model` costs nothing (a model Ollama runs on this machine): its usage then
   * has a `costUsd` of 0 rather than none. Absent: no call is known to be free. */
  callsFree?(model: string): boolean;
}
