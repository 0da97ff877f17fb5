// A run's last event (run.completed or run.error) from its outcome: the transcript it left is kept
// for the next query's `historyId`, and the query's own stream may carry only its added messages.
import { extendsHistory, type ChangedFiles, type RunnerEventPayload, type TranscriptMessage } from "@harness/protocol";
import type { RunOutcome } from "../backend.ts";
import type { TranscriptSlot } from "./transcripts.ts";

/** The history a run started from, as the runner received it. */
export type RunHistory = { messages: readonly TranscriptMessage[]; bytes: number };

export type LastEvent = {
  whole: RunnerEventPayload;
  /** The event with only the messages after the history (RunnerQuery `transcriptAdded`). */
  added?: RunnerEventPayload;
};

/** `changedFiles`: the files the run created or changed (see RunnerEvent run.completed). */
export function lastEvent(outcome: RunOutcome, history: RunHistory, slot: TranscriptSlot, wantsAdded: boolean, unreadSteers: readonly string[] = [], changedFiles?: ChangedFiles): LastEvent {
  const whole = outcomeEvent(outcome);
  if (whole.type === "run.completed" && unreadSteers.length > 0) whole.unreadSteers = [...unreadSteers];
  if (changedFiles) whole.changedFiles = changedFiles;
  const transcript = outcome.transcript;
  if (!transcript) return { whole };
  const from = history.messages.length;
  const extended = extendsHistory(transcript, history.messages);
  const addedMessages = extended ? transcript.slice(from) : undefined;
  // An estimate of the transcript's JSON, without encoding again what the runner received.
  const bytes = addedMessages ? history.bytes + JSON.stringify(addedMessages).length : JSON.stringify(transcript).length;
  whole.transcriptId = slot.keep(transcript, bytes);
  if (!wantsAdded || !addedMessages) return { whole };
  return { whole, added: { ...whole, transcript: addedMessages, transcriptFrom: from } };
}

function outcomeEvent(outcome: RunOutcome): Extract<RunnerEventPayload, { type: "run.completed" | "run.error" }> {
  if (!outcome.ok) {
    return {
      type: "run.error",
      message: outcome.message,
      transcript: outcome.transcript,
      ...(outcome.sessionId && { sessionId: outcome.sessionId }),
      ...(outcome.usage && { usage: outcome.usage }),
      ...(outcome.spent && { spent: outcome.spent }),
    };
  }
  return {
    type: "run.completed",
    result: outcome.result,
    usage: outcome.usage,
    transcript: outcome.transcript,
    sessionId: outcome.sessionId,
    turns: outcome.turns,
    model: outcome.model,
    ...(outcome.spent && { spent: outcome.spent }),
  };
}
