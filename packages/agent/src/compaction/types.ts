import type { ModelMessage } from "@harness/llm";
import type { TranscriptMessage } from "@harness/protocol";

/** The bookkeeping a transcript message may carry (protocol's TranscriptMessage.meta). */
export type CompactMeta = NonNullable<TranscriptMessage["meta"]>;

/** A message of the stored transcript: a model message, plus `meta` on a compaction summary. */
export type TranscriptEntry = ModelMessage & { meta?: CompactMeta };

/** What the compaction functions accept: entries as this package builds them, or as they come back
 * over the wire (the runner's `history`). */
export type AnyTranscriptMessage = TranscriptEntry | TranscriptMessage;
