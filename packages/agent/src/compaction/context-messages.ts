// Which part of a stored transcript the model sees: everything from the last compaction summary on.
// The messages before it stay in the transcript for the record only.
import type { ModelMessage } from "@harness/llm";
import type { AnyTranscriptMessage, TranscriptEntry } from "./types.ts";

/** Index of the last compaction summary, or 0 when the transcript was never compacted. */
export function contextStart(transcript: readonly AnyTranscriptMessage[]): number {
  for (let i = transcript.length - 1; i >= 0; i--) {
    if (transcript[i].meta?.kind === "compact-summary") return i;
  }
  return 0;
}

/** The messages to send to the model: from the last compaction summary on, without `meta` (which
 * must never reach a model). */
export function contextMessages(transcript: readonly AnyTranscriptMessage[]): ModelMessage[] {
  const start = contextStart(transcript);
  const messages: ModelMessage[] = new Array(transcript.length - start);
  for (let i = start; i < transcript.length; i++) messages[i - start] = toModelMessage(transcript[i]);
  return messages;
}

/** The full transcript after a run: the record part of `full` (before its last summary), then the
 * run's transcript, whose first message is that summary again (possibly with the new prompt merged
 * into it) and gets its `meta` back. `run` must be the transcript of a run whose history was
 * `contextMessages(full)`. */
export function rejoinTranscript(full: readonly AnyTranscriptMessage[], run: readonly ModelMessage[]): TranscriptEntry[] {
  const start = contextStart(full);
  const meta = full[start]?.meta;
  if (meta === undefined || run.length === 0) return run.slice();
  const record = full.slice(0, start) as TranscriptEntry[];
  // The summary the run left as it was is the stored message itself (see toModelMessage).
  const summary = run[0].role === full[start].role && run[0].content === full[start].content ? (full[start] as TranscriptEntry) : { ...run[0], meta };
  return [...record, summary, ...run.slice(1)];
}

/** The message itself when it has no `meta`: a run's transcript then begins with the very messages of
 * its history, which lets the runner send back only the ones the run added. */
function toModelMessage(message: AnyTranscriptMessage): ModelMessage {
  if (message.meta === undefined) return message as ModelMessage;
  return { role: message.role, content: message.content as ModelMessage["content"] };
}
