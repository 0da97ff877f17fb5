// Cutting and copying conversations, for rewind, fork and resume. Pure functions: a conversation's
// messages (what users see) and its transcript (what the model sees) must be cut at the same point,
// which is only known at the boundaries of runs — `marks` records the transcript's length before
// each run, by the id of the user message that started it.
import { applyOperations, type DeltaOperation, type HarnessMessage, type HarnessState, type TranscriptMessage } from "@harness/protocol";
import type { Conversation } from "./ports.ts";
import type { LoadedSession } from "./store.ts";

export type Cut<T> = { ok: true; value: T } | { ok: false; message: string; code: "not_found" | "bad_command" };

/** The conversation a store holds: its snapshot with the batches after it applied. */
export function conversationOf(loaded: LoadedSession): Conversation {
  let state = loaded.snapshot.state;
  let seq = loaded.snapshot.seq;
  for (const batch of loaded.batches) {
    if (batch.seq !== seq + 1) break;
    state = applyOperations(state, JSON.parse(batch.operations) as DeltaOperation[]);
    seq = batch.seq;
  }
  return { state, transcript: loaded.snapshot.transcript, marks: loaded.snapshot.marks ?? {} };
}

function indexOf(messages: readonly HarnessMessage[], id: string): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].id === id) return i;
  return -1;
}

/** Where a rewind to user message `messageId` cuts: its index in the messages (it and everything
 * after it go) and the transcript length before its run. */
export function rewindPoint(conversation: Conversation, messageId: string): Cut<{ index: number; transcriptLength: number }> {
  const { messages } = conversation.state;
  const index = indexOf(messages, messageId);
  if (index < 0) return { ok: false, code: "not_found", message: `rewind: no message "${messageId}" in this session` };
  if (messages[index].role !== "user") {
    return { ok: false, code: "bad_command", message: `rewind: message "${messageId}" is an assistant message; rewind needs a user message` };
  }
  const transcriptLength = conversation.marks[messageId];
  if (transcriptLength === undefined) {
    return { ok: false, code: "bad_command", message: `rewind: message "${messageId}" was sent during a run; rewind to the prompt that started the run` };
  }
  return { ok: true, value: { index, transcriptLength } };
}

/** Marks of the messages kept in `messages`. */
function keptMarks(marks: Record<string, number>, messages: readonly HarnessMessage[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const m of messages) if (marks[m.id] !== undefined) out[m.id] = marks[m.id];
  return out;
}

/** Index of the first message of the run in flight, or -1 when none is. */
function activeRunStart(state: HarnessState, marks: Record<string, number>): number {
  if (state.status !== "running" && state.status !== "awaiting-approval") return -1;
  for (let i = state.messages.length - 1; i >= 0; i--) if (marks[state.messages[i].id] !== undefined) return i;
  return -1;
}

/** A copy of `conversation` up to and including `messageId` (default: everything but a run still
 * in flight), as a new idle conversation. The cut must fall on a run boundary: a user message that
 * started a run (the copy's transcript then ends with that prompt as a user turn, so the model sees
 * what the user sees) or a completed assistant message that ended one. */
export function copyConversation(conversation: Conversation, messageId?: string): Cut<Conversation> {
  const { state, transcript, marks } = conversation;
  const { messages } = state;
  let kept: HarnessMessage[];
  let keptTranscript: TranscriptMessage[];
  if (messageId === undefined) {
    const start = activeRunStart(state, marks);
    kept = start < 0 ? messages.slice() : messages.slice(0, start);
    keptTranscript = transcript.slice();
  } else {
    const i = indexOf(messages, messageId);
    if (i < 0) return { ok: false, code: "not_found", message: `no message "${messageId}" in that session` };
    const message = messages[i];
    if (message.role === "user") {
      const mark = marks[message.id];
      if (mark === undefined) return { ok: false, code: "bad_command", message: `message "${messageId}" was sent during a run; pick the prompt that started it or the reply that ended it` };
      kept = messages.slice(0, i + 1);
      keptTranscript = [...transcript.slice(0, mark), { role: "user", content: message.content }];
    } else {
      const next = messages[i + 1];
      const endsRun = next === undefined || marks[next.id] !== undefined;
      if (message.status !== "complete" || !endsRun) {
        return { ok: false, code: "bad_command", message: `message "${messageId}" is not a completed reply that ended a run` };
      }
      kept = messages.slice(0, i + 1);
      keptTranscript = next === undefined ? transcript.slice() : transcript.slice(0, marks[next.id]);
    }
  }
  const copy: HarnessState = { status: "idle", messages: kept };
  if (state.config) copy.config = { ...state.config };
  return { ok: true, value: { state: copy, transcript: keptTranscript, marks: keptMarks(marks, kept) } };
}
