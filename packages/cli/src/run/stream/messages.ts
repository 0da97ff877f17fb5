// Claude Code's messages in `harness run --output-format stream-json`: beside the runner protocol's
// events, each piece of the conversation is also a line in the shape `claude -p --output-format
// stream-json` prints, so that a script reading those (`select(.type == "assistant")`) reads ours:
// `assistant` with one content block (text or tool_use), `user` with a tool_result.
import { randomUUID } from "node:crypto";
import type { ModelEvent } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";

type ContentBlock =
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error: boolean };

export type StreamMessage = {
  type: "assistant" | "user";
  message: { role: "assistant" | "user"; content: ContentBlock[] };
  /** The Task call whose sub-agent this comes from; null for the main agent. */
  parent_tool_use_id: string | null;
  session_id: string;
};

/** Turns the run's events into Claude Code's messages. A text block is whole only once the model
 * moves on from it, so text is held until then: until the model events of the agent that writes it
 * (`modelEvent`) say the block ended (a tool call or thinking began, or the reply is complete), as
 * Claude Code sends a reply before the Stop (or SubagentStop) hooks run and before what a turn more
 * says. A sub-agent's text left when its Task call's result comes goes before it; `end` gives what
 * is left (a run cut short). */
export function streamMessages(sessionId: string) {
  /** Text not yet said, by the agent that writes it ("" for the main agent). */
  const pending = new Map<string, { text: string; parent: string | null }>();
  const message = (role: "assistant" | "user", block: ContentBlock, parent: string | null): StreamMessage => ({
    type: role,
    message: { role, content: [block] },
    parent_tool_use_id: parent,
    session_id: sessionId,
  });
  const flush = (agent: string): StreamMessage[] => {
    const held = pending.get(agent);
    pending.delete(agent);
    return held && held.text.trim() ? [message("assistant", { type: "text", text: held.text }, held.parent)] : [];
  };
  return {
    event(event: AgentEvent): StreamMessage[] {
      const agent = "agentId" in event ? (event.agentId ?? "") : "";
      const parent = ("parentToolUseId" in event && event.parentToolUseId) || null;
      switch (event.type) {
        case "assistant.delta": {
          const held = pending.get(agent) ?? { text: "", parent };
          held.text += event.text;
          pending.set(agent, held);
          return [];
        }
        case "assistant.retracted": {
          // Withdrawn text (reasoning that looked like the reply until its closing tag) is no message.
          const held = pending.get(agent);
          if (!event.thinking && held?.text.endsWith(event.text)) held.text = held.text.slice(0, -event.text.length);
          return [];
        }
        case "tool.started":
          return [...flush(agent), message("assistant", { type: "tool_use", id: event.toolUseId, name: event.toolName, input: event.input ?? {} }, parent)];
        case "tool.completed": {
          // A Task call's result follows what its sub-agent said last.
          const done = [...pending].filter(([, held]) => held.parent === event.toolUseId).flatMap(([key]) => flush(key));
          return [...done, message("user", { type: "tool_result", tool_use_id: event.toolUseId, content: event.output, is_error: event.isError }, parent)];
        }
        default:
          return [];
      }
    },
    /** The model events of the main agent (`agentId` absent) or of the sub-agent `agentId`, each
     * seen before the run's events it brings. */
    modelEvent(event: ModelEvent, agentId = ""): StreamMessage[] {
      return event.type === "tool-call-start" || event.type === "thinking-delta" || event.type === "done" ? flush(agentId) : [];
    },
    end(): StreamMessage[] {
      return [...pending.keys()].flatMap(flush);
    },
  };
}

/** Claude Code's `system` messages for the run's events that have one: a notice is an
 * `informational` line, the run's own change of permission mode a `status` line. The others are
 * in the conversation's messages already, or have no counterpart: undefined. */
export function systemMessage(event: AgentEvent, sessionId: string): Record<string, unknown> | undefined {
  const common = { uuid: randomUUID(), session_id: sessionId, ...("parentToolUseId" in event && event.parentToolUseId && { parent_tool_use_id: event.parentToolUseId }) };
  if (event.type === "notice") return { type: "system", subtype: "informational", content: event.message, level: event.level === "info" ? "info" : "warning", ...common };
  if (event.type === "mode.changed") return { type: "system", subtype: "status", status: null, permissionMode: event.permissionMode, ...common };
  return undefined;
}
