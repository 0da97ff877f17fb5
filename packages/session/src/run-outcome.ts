// How a run that did not end by itself is written down: interrupted by a host that stopped, or cut
// short by cancel or failure. Pure functions over state and transcript.
import type { DeltaOperation, HarnessMessage, HarnessState, TranscriptMessage } from "@harness/protocol";
import { runWaitsClearedOps } from "./queued-steers.ts";
import { settleToolCalls } from "./translate.ts";

export const INTERRUPTED_MESSAGE = "Run interrupted: the server stopped before it finished";
export const EMPTY_REPLY = "[interrupted]";

/** True when the state says a run is in flight. */
export function isRunActive(state: HarnessState): boolean {
  return state.status === "running" || state.status === "awaiting-approval";
}

/** Operations that close a run the host lost (it died or shut down mid-run): running messages become
 * "cancelled", their unfinished tool calls "error", and the session "error" with INTERRUPTED_MESSAGE. */
export function interruptionOps(state: HarnessState): DeltaOperation[] {
  const ops: DeltaOperation[] = [];
  state.messages.forEach((message, i) => {
    if (message.status !== "running") return;
    ops.push(...settleToolCalls(message, i, "error", "interrupted"));
    ops.push({ type: "set", path: ["messages", String(i), "status"], value: "cancelled" });
  });
  ops.push(...runWaitsClearedOps(state));
  ops.push({ type: "set", path: ["status"], value: "error" });
  ops.push({ type: "set", path: ["error"], value: INTERRUPTED_MESSAGE });
  return ops;
}

/** The transcript after a run that left no transcript of its own: the prompt and whatever the
 * assistant said, so the conversation sent to the model next time still alternates user/assistant. */
export function withSynthesizedTurn(transcript: readonly TranscriptMessage[], prompt: string, reply: string): TranscriptMessage[] {
  return [...transcript, { role: "user", content: prompt }, { role: "assistant", content: reply === "" ? EMPTY_REPLY : reply }];
}

/** The messages of a run that left no transcript of its own (it was cancelled, or failed), as turns
 * for the model: its prompt, the replies (an empty one as EMPTY_REPLY), any steer messages between
 * them, and the tool calls the run made with their results, so that the model knows next time what
 * it already did (a file it wrote, a command it ran). A reply's calls follow its text, answered in
 * the next user turn, and the run's last word is an assistant turn, as the model's turns alternate. */
export function turnsOf(messages: readonly HarnessMessage[]): TranscriptMessage[] {
  const turns: TranscriptMessage[] = [];
  for (const m of messages) {
    // A sub-agent's calls were its own conversation's, not the main one's.
    const calls = m.role === "assistant" ? (m.toolCalls ?? []).filter((call) => call.parentToolCallId === undefined) : [];
    if (calls.length === 0) {
      turns.push({ role: m.role, content: m.role === "assistant" && m.content === "" ? EMPTY_REPLY : m.content });
      continue;
    }
    turns.push({
      role: "assistant",
      content: [
        ...(m.content === "" ? [] : [{ type: "text", text: m.content }]),
        ...calls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.input ?? {} })),
      ],
    });
    turns.push({
      role: "user",
      content: calls.map((call) => ({
        type: "tool_result",
        tool_use_id: call.id,
        content: call.output || (call.status === "complete" ? "(no output)" : `(${call.status === "denied" ? "denied" : "stopped before it finished"})`),
        ...(call.status !== "complete" && { is_error: true }),
      })),
    });
    turns.push({ role: "assistant", content: EMPTY_REPLY });
  }
  return turns;
}

/** The prompt and partial reply of the last interrupted run in `state`, if any. */
export function lastInterruptedTurn(state: HarnessState): { prompt: string; reply: string } | undefined {
  for (let i = state.messages.length - 1; i > 0; i--) {
    const message = state.messages[i];
    if (message.role !== "assistant" || message.status !== "running") continue;
    const user = state.messages[i - 1];
    return user.role === "user" ? { prompt: user.content, reply: message.content } : undefined;
  }
  return undefined;
}
