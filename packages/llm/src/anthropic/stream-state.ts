// Folds the raw events of one Anthropic Messages stream into normalized ModelEvents and the final
// assistant message. One state per attempt; `applyRawEvent` is called once per SSE event, so it
// returns at most one event and allocates nothing beyond it.
import type Anthropic from "@anthropic-ai/sdk";
import type { Usage } from "@harness/protocol";
import { isBlankText } from "../blank-text.ts";
import { badInputMessage, parseToolInput } from "../tool-input.ts";
import type { ContentBlock, ModelEvent, ModelMessage, StopReason, WebSearchCitation, WebSearchToolResultBlock } from "../types.ts";

type RawEvent = Anthropic.RawMessageStreamEvent;

type TextAcc = { kind: "text"; text: string; citations?: WebSearchCitation[] };
/** A server tool's call (a web search): its input streams as a tool's does, but it is the API's to
 * run, so it makes no tool-call events. */
type ServerUseAcc = { kind: "server-use"; id: string; name: string; json: string; input: Record<string, unknown> | undefined };
/** A server tool's result, given whole in content_block_start. */
type ServerResultAcc = { kind: "server-result"; block: WebSearchToolResultBlock };
type ToolAcc = { kind: "tool"; id: string; name: string; json: string; input: Record<string, unknown> | undefined };
/** `done` once content_block_stop arrived: only then is the signature whole. */
type ThinkingAcc = { kind: "thinking"; thinking: string; signature: string; done: boolean };
type RedactedAcc = { kind: "redacted"; data: string };
type BlockAcc = TextAcc | ToolAcc | ThinkingAcc | RedactedAcc | ServerUseAcc | ServerResultAcc;

export type StreamState = {
  /** Blocks by their stream index; blocks of kinds we do not model (server tools, …) stay undefined. */
  blocks: (BlockAcc | undefined)[];
  usage: Usage;
  stopReason: string | null;
  /** message_stop arrived: the reply is complete. */
  complete: boolean;
  refusal?: string;
};

export function createStreamState(): StreamState {
  return {
    blocks: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    stopReason: null,
    complete: false,
  };
}

export function applyRawEvent(state: StreamState, event: RawEvent): ModelEvent | undefined {
  switch (event.type) {
    case "content_block_delta": {
      const block = state.blocks[event.index];
      const delta = event.delta;
      if (delta.type === "text_delta" && block?.kind === "text") {
        block.text += delta.text;
        return { type: "text-delta", text: delta.text };
      }
      if (delta.type === "input_json_delta" && block?.kind === "tool") {
        if (delta.partial_json === "") return undefined;
        block.json += delta.partial_json;
        return { type: "tool-call-delta", id: block.id, partialJson: delta.partial_json };
      }
      if (delta.type === "input_json_delta" && block?.kind === "server-use") block.json += delta.partial_json;
      if (delta.type === "citations_delta" && block?.kind === "text" && delta.citation.type === "web_search_result_location") {
        (block.citations ??= []).push(delta.citation as WebSearchCitation);
      }
      if (delta.type === "thinking_delta" && block?.kind === "thinking") {
        block.thinking += delta.thinking;
        return { type: "thinking-delta", text: delta.thinking };
      }
      if (delta.type === "signature_delta" && block?.kind === "thinking") block.signature += delta.signature;
      return undefined;
    }
    case "content_block_start": {
      const start = event.content_block;
      if (start.type === "text") {
        state.blocks[event.index] = { kind: "text", text: start.text };
        return start.text ? { type: "text-delta", text: start.text } : undefined;
      }
      if (start.type === "tool_use") {
        state.blocks[event.index] = { kind: "tool", id: start.id, name: start.name, json: "", input: undefined };
        return { type: "tool-call-start", id: start.id, name: start.name };
      }
      if (start.type === "thinking") {
        state.blocks[event.index] = { kind: "thinking", thinking: start.thinking, signature: start.signature, done: false };
        return start.thinking ? { type: "thinking-delta", text: start.thinking } : undefined;
      }
      if (start.type === "redacted_thinking") state.blocks[event.index] = { kind: "redacted", data: start.data };
      if (start.type === "server_tool_use") state.blocks[event.index] = { kind: "server-use", id: start.id, name: start.name, json: "", input: undefined };
      if (start.type === "web_search_tool_result") state.blocks[event.index] = { kind: "server-result", block: start as WebSearchToolResultBlock };
      return undefined;
    }
    case "content_block_stop": {
      const block = state.blocks[event.index];
      if (block?.kind === "thinking") block.done = true;
      if (block?.kind === "server-use") block.input = parseToolInput(block.json) ?? {};
      if (block?.kind !== "tool") return undefined;
      const input = parseToolInput(block.json);
      if (input === undefined) {
        // Kept in the reply with an empty input (the API takes nothing else back), and answered
        // with the error so the model can try again.
        block.input = {};
        return { type: "tool-call-end", id: block.id, name: block.name, input: block.input, inputError: badInputMessage(block.name, block.json) };
      }
      block.input = input;
      return { type: "tool-call-end", id: block.id, name: block.name, input };
    }
    case "message_start": {
      const u = event.message.usage;
      state.usage.inputTokens = u.input_tokens ?? 0;
      state.usage.outputTokens = u.output_tokens ?? 0;
      state.usage.cacheReadTokens = u.cache_read_input_tokens ?? 0;
      state.usage.cacheWriteTokens = u.cache_creation_input_tokens ?? 0;
      return undefined;
    }
    case "message_delta": {
      if (event.delta.stop_reason) state.stopReason = event.delta.stop_reason;
      const details = (event.delta as { stop_details?: { explanation?: unknown; category?: unknown } | null }).stop_details;
      if (details && typeof details.explanation === "string" && details.explanation.trim() !== "") {
        state.refusal = typeof details.category === "string" ? `${details.explanation} (${details.category})` : details.explanation;
      }
      // message_delta usage is cumulative; fields the API leaves null keep the message_start value.
      const u = event.usage;
      if (typeof u.output_tokens === "number") state.usage.outputTokens = u.output_tokens;
      if (typeof u.input_tokens === "number") state.usage.inputTokens = u.input_tokens;
      if (typeof u.cache_read_input_tokens === "number") state.usage.cacheReadTokens = u.cache_read_input_tokens;
      if (typeof u.cache_creation_input_tokens === "number") state.usage.cacheWriteTokens = u.cache_creation_input_tokens;
      const searches = u.server_tool_use?.web_search_requests;
      if (typeof searches === "number" && searches > 0) state.usage.webSearchRequests = searches;
      return undefined;
    }
    case "message_stop":
      state.complete = true;
      return undefined;
    default:
      return undefined;
  }
}

/** The assistant message so far: non-empty text blocks, thinking blocks with their signatures, and
 * tool_use blocks whose input is complete, in stream order. A thinking or tool_use block still
 * streaming is left out: sent back incomplete, the API would reject it. */
export function assistantMessage(state: StreamState): ModelMessage {
  const content: ContentBlock[] = [];
  for (const block of state.blocks) {
    if (block === undefined) continue;
    switch (block.kind) {
      case "text":
        // Whitespace alone (a "\n\n" before a tool call) would be refused when sent back.
        if (!isBlankText(block.text)) content.push({ type: "text", text: block.text, ...(block.citations && { citations: block.citations }) });
        break;
      case "server-use":
        if (block.input !== undefined) content.push({ type: "server_tool_use", id: block.id, name: block.name, input: block.input });
        break;
      case "server-result":
        content.push(block.block);
        break;
      case "tool":
        if (block.input !== undefined) content.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
        break;
      case "thinking":
        if (block.done) content.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
        break;
      case "redacted":
        content.push({ type: "redacted_thinking", data: block.data });
        break;
    }
  }
  return { role: "assistant", content };
}

export function hasToolUse(state: StreamState): boolean {
  return state.blocks.some((b) => b?.kind === "tool" && b.input !== undefined);
}

const KNOWN_STOP_REASONS: ReadonlySet<string> = new Set<StopReason>([
  "end_turn",
  "tool_use",
  "max_tokens",
  "stop_sequence",
  "refusal",
  "pause_turn",
]);

/** The API's stop_reason as a StopReason. Reasons newer than this code map to their nearest kin. */
export function finalStopReason(state: StreamState): StopReason {
  const reason = state.stopReason;
  if (reason !== null && KNOWN_STOP_REASONS.has(reason)) return reason as StopReason;
  if (reason === "model_context_window_exceeded") return "max_tokens";
  return hasToolUse(state) ? "tool_use" : "end_turn";
}
