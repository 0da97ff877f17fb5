// `harness run --output-format stream-json --include-partial-messages`: the main agent's model
// streams as Claude Code passes them on, each event of the Anthropic Messages API's stream
// (message_start, content_block_start/delta/stop, message_delta, message_stop) in a `stream_event`
// line, so that a program can show the reply as it comes. Whatever the provider, the events are
// rebuilt in the API's shape from the run's normalized model events.
import { randomUUID } from "node:crypto";
import type { ModelEvent } from "@harness/llm";

export type StreamEventLine = {
  type: "stream_event";
  event: Record<string, unknown>;
  parent_tool_use_id: null;
  session_id: string;
  uuid: string;
};

/** Turns model events into `stream_event` lines. `model` is read as each message starts. */
export function partialMessages(sessionId: string, model: () => string | undefined) {
  /** Whether a message is under way, the index of its open block (-1: none yet) and its kind. */
  let started = false;
  let index = -1;
  let open: "text" | "thinking" | "tool_use" | undefined;
  const line = (event: Record<string, unknown>): StreamEventLine => ({ type: "stream_event", event, parent_tool_use_id: null, session_id: sessionId, uuid: randomUUID() });
  const start = (): StreamEventLine[] => {
    if (started) return [];
    started = true;
    index = -1;
    const message = { id: `msg_${randomUUID().replace(/-/g, "")}`, type: "message", role: "assistant", model: model() ?? "", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } };
    return [line({ type: "message_start", message })];
  };
  const close = (): StreamEventLine[] => {
    if (open === undefined) return [];
    open = undefined;
    return [line({ type: "content_block_stop", index })];
  };
  /** A new block of `kind`, unless one of that kind is open (text and thinking go on across deltas). */
  const block = (kind: "text" | "thinking", empty: Record<string, unknown>): StreamEventLine[] => {
    if (open === kind) return [];
    const closed = close();
    open = kind;
    index++;
    return [...closed, line({ type: "content_block_start", index, content_block: empty })];
  };
  return {
    event(event: ModelEvent): StreamEventLine[] {
      switch (event.type) {
        case "text-delta":
          return [...start(), ...block("text", { type: "text", text: "" }), line({ type: "content_block_delta", index, delta: { type: "text_delta", text: event.text } })];
        case "thinking-delta":
          return [...start(), ...block("thinking", { type: "thinking", thinking: "" }), line({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: event.text } })];
        case "tool-call-start": {
          const opening = [...start(), ...close()];
          open = "tool_use";
          index++;
          return [...opening, line({ type: "content_block_start", index, content_block: { type: "tool_use", id: event.id, name: event.name, input: {} } })];
        }
        case "text-withdrawn":
          // The API's stream cannot take text back: the thinking-delta that follows opens a thinking
          // block after it, and the assistant message has it as thinking only.
          return [];
        case "tool-call-delta":
          return open === "tool_use" ? [line({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: event.partialJson } })] : [];
        case "tool-call-end":
          return open === "tool_use" ? close() : [];
        case "done": {
          // A call that failed or was cancelled has no stop of the API's to tell.
          const stopped = event.stopReason !== "error" && event.stopReason !== "aborted";
          const lines = stopped ? [...start(), ...close()] : close();
          if (stopped) {
            const usage = {
              input_tokens: event.usage.inputTokens,
              output_tokens: event.usage.outputTokens,
              cache_read_input_tokens: event.usage.cacheReadTokens ?? 0,
              cache_creation_input_tokens: event.usage.cacheWriteTokens ?? 0,
            };
            lines.push(line({ type: "message_delta", delta: { stop_reason: event.stopReason, stop_sequence: null }, usage }), line({ type: "message_stop" }));
          }
          started = false;
          return lines;
        }
        default:
          return [];
      }
    },
  };
}
