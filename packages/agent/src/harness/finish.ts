// How a run ends: the result it returns, with a transcript the next run can use as it is.
import type { AgentEvent } from "@harness/protocol";
import { INTERRUPTED } from "../loop/execute-tool-calls.ts";
import { closeDanglingToolUses, textOf, withUserText } from "../loop/transcript.ts";
import type { AgentStopReason, RunAgentResult } from "../types.ts";
import { transcriptOf, type RunState } from "./run-state.ts";

const MODEL_FAILED = "Not run: the model request failed before this tool call could run.";

/** The result of the run. A run cut short answers its unanswered tool calls (and tells the UI
 * about those it had announced). `text` is the reply of a run that did not ask the model. */
export function finish(state: RunState, stopReason: AgentStopReason, errorMessage?: string, text?: string): RunAgentResult {
  if (stopReason === "aborted" || stopReason === "error") {
    const reason = stopReason === "aborted" ? INTERRUPTED : MODEL_FAILED;
    for (const id of closeDanglingToolUses(state.messages, reason)) {
      if (state.started.has(id)) safeEmit(state, { type: "tool.completed", toolUseId: id, output: reason, isError: true });
    }
  }
  const result: RunAgentResult = {
    stopReason,
    result: text ?? textOf(state.lastReply),
    transcript: transcriptOf(state),
    usage: state.usage,
    turns: state.turns,
    model: state.model,
    modelUsage: structuredClone(state.spend.byModel),
    apiMs: state.spend.apiMs,
  };
  if (errorMessage !== undefined) result.errorMessage = errorMessage;
  else if (stopReason === "aborted") result.errorMessage = INTERRUPTED;
  return result;
}

/** Ends a run that answers without the model (/help, /compact): the text is streamed as the reply. */
export function reply(state: RunState, text: string): RunAgentResult {
  state.emit({ type: "assistant.delta", text });
  return finish(state, "end_turn", undefined, text);
}

/** Adds the user's message to the conversation. */
export function withPrompt(state: RunState, text: string): RunState {
  state.messages = withUserText(state.messages, text);
  return state;
}

/** finish() also runs after emit itself has thrown; the result must still come back. */
function safeEmit(state: RunState, event: AgentEvent): void {
  try {
    state.emit(event);
  } catch {
    // The caller's listener is broken; the transcript already records the outcome.
  }
}
