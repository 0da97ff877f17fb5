// The Anthropic Messages wire format as the real API writes it: SSE events for streaming replies,
// JSON bodies for stream:false replies and errors. Every function returns one complete SSE event
// (ending in a blank line) so the server writes each event with a single write.
import { createHash, randomBytes } from "node:crypto";
import type { WebSearchWireBlock } from "./fake-anthropic-web-search.ts";

export type WireUsage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** The reply's server-side searches that ran (errors are not billed); the API reports them at the end. */
  server_tool_use?: { web_search_requests: number };
};

export type WireBlock =
  | { type: "text"; text: string; citations?: unknown[] }
  | WebSearchWireBlock
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "thinking"; thinking: string; signature: string };

export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function messageStartEvent(id: string, model: string, usage: WireUsage): string {
  return sseEvent("message_start", {
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  });
}

export function textBlockStartEvent(index: number): string {
  return `event: content_block_start\ndata: {"type":"content_block_start","index":${index},"content_block":{"type":"text","text":""}}\n\n`;
}

export function toolUseBlockStartEvent(index: number, id: string, name: string): string {
  return sseEvent("content_block_start", {
    type: "content_block_start",
    index,
    content_block: { type: "tool_use", id, name, input: {} },
  });
}

export function thinkingBlockStartEvent(index: number): string {
  return sseEvent("content_block_start", { type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
}

export function thinkingDeltaEvent(index: number, thinking: string): string {
  return sseEvent("content_block_delta", { type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } });
}

export function signatureDeltaEvent(index: number, signature: string): string {
  return sseEvent("content_block_delta", { type: "content_block_delta", index, delta: { type: "signature_delta", signature } });
}

/** A stand-in for the API's opaque signature: the same thinking always gets the same one. */
export function thinkingSignature(thinking: string): string {
  return `fake-sig-${createHash("sha256").update(thinking).digest("base64")}`;
}

/** Hot path (benchmarks send tens of thousands): built by hand rather than through an object. */
export function textDeltaEvent(index: number, text: string): string {
  return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}\n\n`;
}

export function inputJsonDeltaEvent(index: number, partialJson: string): string {
  return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"input_json_delta","partial_json":${JSON.stringify(partialJson)}}}\n\n`;
}

export function blockStopEvent(index: number): string {
  return `event: content_block_stop\ndata: {"type":"content_block_stop","index":${index}}\n\n`;
}

export function messageDeltaEvent(stopReason: string, usage: WireUsage, stopDetails?: { category: string | null; explanation: string | null }): string {
  return sseEvent("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stopReason, stop_sequence: null, ...(stopDetails && { stop_details: { type: "refusal", ...stopDetails } }) },
    usage,
  });
}

export const MESSAGE_STOP_EVENT = `event: message_stop\ndata: {"type":"message_stop"}\n\n`;
export const PING_EVENT = `event: ping\ndata: {"type": "ping"}\n\n`;

export function errorBody(type: string, message: string): { type: "error"; error: { type: string; message: string } } {
  return { type: "error", error: { type, message } };
}

export function errorEvent(type: string, message: string): string {
  return sseEvent("error", errorBody(type, message));
}

/** The error type the real API sends with each status. */
export function defaultErrorType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    case 529:
      return "overloaded_error";
    default:
      return "api_error";
  }
}

export function defaultErrorMessage(type: string): string {
  switch (type) {
    case "overloaded_error":
      return "Overloaded";
    case "rate_limit_error":
      return "Number of request tokens has exceeded your per-minute rate limit";
    case "authentication_error":
      return "invalid x-api-key";
    case "not_found_error":
      return "Not found";
    case "invalid_request_error":
      return "Invalid request";
    default:
      return "Internal server error";
  }
}

/** A rough token count, about four characters per token, as plausible usage numbers. */
export function estimateTokens(value: unknown): number {
  if (value === undefined) return 0;
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return Math.max(1, Math.ceil(text.length / 4));
}

export function newId(prefix: "msg" | "toolu" | "req"): string {
  return `${prefix}_01${randomBytes(11).toString("hex")}`;
}
