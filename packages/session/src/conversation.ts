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

/** A copy of a conversation, with what its files should be restored to. */
export type ConversationCopy = Conversation & {
  /** The prompt of the user message the copy was cut before, for the user to send again (or edit):
   * a copy at a prompt holds what came before it, as a rewind to it would. */
  prompt?: string;
  /** The user message whose run's checkpoint holds the copy's files (its workspace as it was just
   * before that run); undefined when they are the source's as they are now. */
  filesBefore?: string;
};

/** A copy of `conversation` at `messageId` (default: everything but a run still in flight), as a
 * new idle conversation whose messages and transcript agree. The cut must fall on a run boundary:
 * before a user message that started a run (as a rewind to it cuts), or after a completed
 * assistant message that ended one. */
export function copyConversation(conversation: Conversation, messageId?: string): Cut<ConversationCopy> {
  const { state, transcript, marks } = conversation;
  const { messages } = state;
  let kept: HarnessMessage[];
  let keptTranscript: TranscriptMessage[];
  let prompt: string | undefined;
  let filesBefore: string | undefined;
  if (messageId === undefined) {
    const start = activeRunStart(state, marks);
    kept = start < 0 ? messages.slice() : messages.slice(0, start);
    keptTranscript = transcript.slice();
    if (start >= 0) filesBefore = messages[start].id;
  } else {
    const i = indexOf(messages, messageId);
    if (i < 0) return { ok: false, code: "not_found", message: `no message "${messageId}" in that session` };
    const message = messages[i];
    if (message.role === "user") {
      const mark = marks[message.id];
      if (mark === undefined) return { ok: false, code: "bad_command", message: `message "${messageId}" was sent during a run; pick the prompt that started it or the reply that ended it` };
      kept = messages.slice(0, i);
      keptTranscript = transcript.slice(0, mark);
      prompt = message.content;
      filesBefore = message.id;
    } else {
      const next = messages[i + 1];
      const endsRun = next === undefined || marks[next.id] !== undefined;
      if (message.status !== "complete" || !endsRun) {
        return { ok: false, code: "bad_command", message: `message "${messageId}" is not a completed reply that ended a run` };
      }
      kept = messages.slice(0, i + 1);
      keptTranscript = next === undefined ? transcript.slice() : transcript.slice(0, marks[next.id]);
      filesBefore = next?.id;
    }
  }
  const copy: HarnessState = { status: "idle", messages: kept };
  if (state.config) copy.config = { ...state.config };
  const value: ConversationCopy = { state: copy, transcript: keptTranscript, marks: keptMarks(marks, kept) };
  if (prompt !== undefined) value.prompt = prompt;
  if (filesBefore !== undefined) value.filesBefore = filesBefore;
  return { ok: true, value };
}
