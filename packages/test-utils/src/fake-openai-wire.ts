// The chat-completions wire format as OpenAI writes it: `data: {chunk}` SSE events ending with
// `data: [DONE]`, JSON completions for stream:false, and `{"error": {…}}` bodies. Every function
// returns one complete SSE event so the server writes each with a single write.
import { randomBytes } from "node:crypto";

export type WireUsage = {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
};

export type WireToolCall = { index: number; id?: string; type?: "function"; function: { name?: string; arguments: string } };

/** The envelope every chunk of one completion shares. Text chunks, the hot path, are spliced into
 * a prefix and suffix built once per completion. */
export type ChunkWriter = {
  text(content: string): string;
  delta(delta: Record<string, unknown>, finishReason?: string | null): string;
  usage(usage: WireUsage): string;
};

export function chunkWriter(id: string, model: string, includeUsage: boolean): ChunkWriter {
  const created = Math.floor(Date.now() / 1000);
  const head = `{"id":${JSON.stringify(id)},"object":"chat.completion.chunk","created":${created},"model":${JSON.stringify(model)},"system_fingerprint":null,"choices":[`;
  const usageTail = includeUsage ? `,"usage":null}` : "}";
  const textPrefix = `data: ${head}{"index":0,"delta":{"content":`;
  const textSuffix = `},"logprobs":null,"finish_reason":null}]${usageTail}\n\n`;
  return {
    text: (content) => `${textPrefix}${JSON.stringify(content)}${textSuffix}`,
    delta: (delta, finishReason = null) =>
      `data: ${head}${JSON.stringify({ index: 0, delta, logprobs: null, finish_reason: finishReason })}]${usageTail}\n\n`,
    usage: (usage) => `data: ${head}],"usage":${JSON.stringify(usage)}}\n\n`,
  };
}

export const DONE_EVENT = "data: [DONE]\n\n";

export function errorBody(type: string, message: string, code: string | null = null) {
  return { error: { message, type, param: null, code } };
}

export function errorEvent(type: string, message: string): string {
  return `data: ${JSON.stringify(errorBody(type, message))}\n\n`;
}

export function defaultErrorType(status: number): string {
  if (status === 429) return "requests";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

export function defaultErrorCode(status: number): string | null {
  switch (status) {
    case 401:
      return "invalid_api_key";
    case 404:
      return "model_not_found";
    case 429:
      return "rate_limit_exceeded";
    default:
      return null;
  }
}

export function defaultErrorMessage(status: number): string {
  switch (status) {
    case 401:
      return "Incorrect API key provided.";
    case 404:
      return "The model does not exist or you do not have access to it.";
    case 429:
      return "Rate limit reached for requests. Please try again later.";
    default:
      return status >= 500 ? "The server had an error while processing your request. Sorry about that!" : "Invalid request.";
  }
}

export function newOpenAIId(prefix: "chatcmpl" | "call" | "req"): string {
  return `${prefix}${prefix === "call" ? "_" : "-"}${randomBytes(12).toString("hex")}`;
}
