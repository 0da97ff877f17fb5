// Compaction: the older part of the model's context is replaced by a summary the model writes. The
// stored transcript keeps every message; a summary message marked `meta.kind: "compact-summary"`
// starts the part the model sees from then on.
import type { ContentBlock, ModelMessage, Provider } from "@harness/llm";
import type { Usage } from "@harness/protocol";
import { textOf } from "../loop/transcript.ts";
import { emptyUsage } from "../loop/usage.ts";
import { contextMessages, contextStart } from "./context-messages.ts";
import { renderForSummary } from "./render-transcript.ts";
import { chooseSplit } from "./split-point.ts";
import { continuationText, extractSummary, SUMMARY_SYSTEM_PROMPT, summaryRequest } from "./summary-prompt.ts";
import type { AnyTranscriptMessage, TranscriptEntry } from "./types.ts";

export const DEFAULT_KEEP_RECENT = 2;
export const DEFAULT_KEEP_TOKENS = 20_000;
export const SUMMARY_MAX_TOKENS = 20_000;

export type CompactOptions = {
  /** The whole stored transcript; it is not modified. */
  transcript: readonly AnyTranscriptMessage[];
  provider: Provider;
  model: string;
  /** User turns kept word for word after the summary; default 2. Fewer are kept when that would
   * leave nothing to summarize. */
  keepRecent?: number;
  /** Upper bound, in estimated tokens, of what is kept word for word; default 20,000. Past it the
   * cut moves later, inside a turn if need be. */
  keepTokens?: number;
  /** What the user wants the summary to focus on (`/compact <instructions>`). */
  instructions?: string;
  /** The task list TodoWrite holds, given back with the summary. */
  todos?: readonly { content: string; status: string }[];
  /** The model's context window, in tokens: the summary may not ask for more output than the
   * window leaves after its input (servers refuse such a request). */
  contextWindow?: number;
  signal: AbortSignal;
  /** Hears what the provider warns about while the summary is requested (a deprecated model). */
  onWarning?: (message: string) => void;
};

export type CompactResult =
  | {
      /** The full transcript: every earlier message, then the summary message (role user,
       * meta compact-summary; the first kept user message, if any, merged into it), then the kept
       * messages. */
      transcript: TranscriptEntry[];
      summary: string;
      /** Messages summarized by this compaction (also the summary's `meta.dropped`). */
      dropped: number;
      /** The summary request's usage. */
      usage: Usage;
    }
  | { error: string; usage?: Usage };

/** Summarizes the older part of the model's context with one model call (no tools). Never rejects;
 * on failure returns `{ error }` and the caller keeps its transcript as it was. The new context
 * (`contextMessages(result.transcript)`) is a valid conversation: it starts with the user's summary
 * message, roles alternate, and no tool_use is separated from its tool_result. */
export async function compact(options: CompactOptions): Promise<CompactResult> {
  const start = contextStart(options.transcript);
  const context = contextMessages(options.transcript);
  const split = chooseSplit(context, {
    keepRecent: options.keepRecent ?? DEFAULT_KEEP_RECENT,
    keepTokens: options.keepTokens ?? DEFAULT_KEEP_TOKENS,
  });
  const toSummarize = context.slice(0, split);
  const alreadySummary = options.transcript[start]?.meta !== undefined;
  if (toSummarize.length === 0 || (alreadySummary && toSummarize.length === 1)) {
    return { error: "Nothing to compact yet: the conversation has no messages that are not already summarized." };
  }

  const reply = await requestSummary(options, renderForSummary(toSummarize));
  if ("error" in reply) return reply;

  const kept = options.transcript.slice(start + split) as TranscriptEntry[];
  const intro = continuationText(reply.summary, kept.length > 0, options.todos);
  const first = kept[0];
  const meta = { kind: "compact-summary" as const, dropped: split };
  const summaryMessage: TranscriptEntry =
    first?.role === "user"
      ? { role: "user", content: [{ type: "text", text: intro }, ...blocksOf(first)], meta }
      : { role: "user", content: intro, meta };
  const rest = first?.role === "user" ? kept.slice(1) : kept;
  return {
    transcript: [...(options.transcript.slice(0, start + split) as TranscriptEntry[]), summaryMessage, ...rest],
    summary: reply.summary,
    dropped: split,
    usage: reply.usage,
  };
}

async function requestSummary(options: CompactOptions, conversation: string): Promise<{ summary: string; usage: Usage } | { error: string; usage?: Usage }> {
  const { provider, model, signal } = options;
  const messages: ModelMessage[] = [{ role: "user", content: summaryRequest(conversation, options.instructions) }];
  try {
    for await (const event of provider.stream({ model, system: SUMMARY_SYSTEM_PROMPT, messages, maxTokens: summaryMaxTokens(options.contextWindow, conversation), signal })) {
      if (event.type === "warning") options.onWarning?.(event.message);
      if (event.type !== "done") continue;
      if (event.stopReason === "aborted") return { error: "Compaction was cancelled.", usage: event.usage };
      if (event.stopReason === "error") return { error: `The summary request failed: ${event.errorMessage ?? "unknown error"}`, usage: event.usage };
      const summary = extractSummary(textOf(event.message));
      if (!summary) return { error: "The model returned an empty summary.", usage: event.usage };
      return { summary, usage: event.usage };
    }
    return { error: `The summary request failed: the ${provider.name} stream ended without a final event.`, usage: emptyUsage() };
  } catch (error) {
    if (signal.aborted) return { error: "Compaction was cancelled." };
    return { error: `The summary request failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function blocksOf(message: ModelMessage): ContentBlock[] {
  if (typeof message.content !== "string") return message.content;
  return message.content ? [{ type: "text", text: message.content }] : [];
}

/** The summary's output limit: SUMMARY_MAX_TOKENS, or what the window leaves after the request's
 * estimated input (four characters a token, with a margin), never under MIN_SUMMARY_TOKENS. */
export function summaryMaxTokens(contextWindow: number | undefined, conversation: string): number {
  if (contextWindow === undefined) return SUMMARY_MAX_TOKENS;
  const input = Math.ceil((conversation.length + SUMMARY_SYSTEM_PROMPT.length) / 4);
  return Math.max(MIN_SUMMARY_TOKENS, Math.min(SUMMARY_MAX_TOKENS, contextWindow - input - SUMMARY_MARGIN_TOKENS));
}

const MIN_SUMMARY_TOKENS = 1_024;
const SUMMARY_MARGIN_TOKENS = 2_000;
