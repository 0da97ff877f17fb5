// Scripted replies for the fake OpenAI chat-completions server. Each request to
// /v1/chat/completions takes one reply; the same reply answers a streaming request (SSE chunks)
// and a stream:false request (one JSON completion).
import type { FakeModelServer, RecordedRequest, ScriptedReplies, ScriptedText } from "./fake-server-core.ts";

export type FakeOpenAIToolCall = {
  /** Defaults to a unique "call_…" id. null: the call's chunks carry no id (llama.cpp, some Ollama
   * versions). */
  id?: string | null;
  name: string;
  arguments: Record<string, unknown>;
  /** How many chunks carry the arguments after the chunk that names the call (default 3). */
  chunks?: number;
  /** Name and whole arguments in a single chunk, as Ollama sends them. */
  inline?: boolean;
  /** Raw arguments text to stream instead of JSON.stringify(arguments), e.g. malformed JSON. */
  argumentsJson?: string;
};

export type FakeOpenAIUsage = { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number };

/** The text goes out as `content` deltas. */
export type FakeOpenAIMessageReply = ScriptedText & {
  kind?: "message";
  /** Streamed before the text as `reasoning_content` deltas (DeepSeek and vLLM style). */
  reasoning?: string | string[];
  /** Streamed one after another by index. */
  toolCalls?: FakeOpenAIToolCall[];
  /** Default "tool_calls" when toolCalls are given, else "stop". null: a stream sends no chunk with
   * a finish_reason (it ends with [DONE] alone), as some compatible servers do. */
  finishReason?: string | null;
  /** The body just ends, without `data: [DONE]`. */
  omitDone?: boolean;
  /** Sent in a final chunk when the request asks for stream_options.include_usage; defaults are
   * estimated from the request and reply sizes. */
  usage?: FakeOpenAIUsage;
};

export type FakeOpenAIHttpErrorReply = {
  kind: "http-error";
  status: number;
  /** Defaults by status: 429 "requests", 5xx "server_error", 4xx "invalid_request_error". */
  errorType?: string;
  /** Defaults by status: 429 "rate_limit_exceeded", 401 "invalid_api_key", 404 "model_not_found". */
  code?: string | null;
  message?: string;
  /** Sent as the retry-after header, in seconds. */
  retryAfter?: number;
  /** A page sent as text/html in place of the JSON error body, as a proxy in front would. */
  html?: string;
};

/** An `{"error": …}` payload inside the stream, after which the stream ends without [DONE]. */
export type FakeOpenAIStreamErrorReply = {
  kind: "stream-error";
  /** Content deltas sent before the error (none when absent). */
  afterText?: string;
  /** Default "server_error". */
  errorType?: string;
  message?: string;
  /** OpenRouter's shape: the error has an HTTP status as its `code` and no `type`. */
  statusCode?: number;
};

/** The connection is cut mid-stream, after `afterText` (if any) was sent. */
export type FakeOpenAIStreamBreakReply = { kind: "stream-break"; afterText?: string };

export type FakeOpenAIReply = FakeOpenAIMessageReply | FakeOpenAIHttpErrorReply | FakeOpenAIStreamErrorReply | FakeOpenAIStreamBreakReply;

export type FakeOpenAI = FakeModelServer<FakeOpenAIReply> & {
  /** Base URL for OPENAI_BASE_URL, ending in /v1, e.g. http://127.0.0.1:PORT/v1 */
  url: string;
  /** Every chat-completions request, in arrival order. */
  requests: RecordedRequest[];
};

/** Ways compatible servers differ from OpenAI's own, for every request the fake answers. */
export type FakeOpenAIQuirks = {
  /** Every request that sends `stream_options` is refused with a 400 naming it, as some servers
   * and proxies do; it takes no scripted reply. */
  rejectsStreamOptions?: boolean;
  /** A request that sends this field is refused with a 400 in OpenAI's words (OpenAI's reasoning
   * models refuse max_tokens; some servers do not know max_completion_tokens). */
  refusesTokensField?: "max_tokens" | "max_completion_tokens";
  /** A streaming request is answered with one JSON chat.completion, as some proxies and servers
   * answer when they cannot stream (with tools, say). */
  ignoresStream?: boolean;
  /** No usage is ever sent, even when asked for (older Ollama versions). */
  noUsage?: boolean;
};

export type FakeOpenAIOptions = ScriptedReplies<FakeOpenAIReply> & {
  quirks?: FakeOpenAIQuirks;
  /** The bearer tokens the server takes: a request with another, or none, is answered 401 as the
   * API answers it (quoting the key's start and end). Default: any. */
  apiKeys?: readonly string[];
  /** The ids GET /models lists. Default: ["gpt-test"]. */
  models?: readonly string[];
};
