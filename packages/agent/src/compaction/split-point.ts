// Where to cut the context for a compaction: the messages before the cut are summarized, the ones
// from it on are kept verbatim. A cut only ever falls right before an assistant message or right
// before a user message that holds no tool_result, so a tool_use and its tool_result (which the next
// message carries) always land on the same side.
import type { ContentBlock, ModelMessage } from "@harness/llm";

/** Rough tokens per image block: what the model API charges for a typical screenshot. */
const IMAGE_TOKENS = 1_600;
/** Rough tokens per PDF document block: the model API charges 1,500–3,000 tokens a page (its text
 * and its image), and Read sends ten pages at a time unless asked for a range. */
const DOCUMENT_TOKENS = 25_000;

export type SplitOptions = {
  /** User turns to keep verbatim (a turn starts at a user message that is not only tool results). */
  keepRecent: number;
  /** Upper bound, in estimated tokens, of what is kept verbatim. */
  keepTokens: number;
};

/** Index of the first kept message, in 1..messages.length (messages.length keeps nothing), or 0 for
 * an empty context. Keeps the last `keepRecent` turns, fewer when that would leave nothing to
 * summarize, and cuts later (inside a turn if need be) when they exceed `keepTokens`. When the
 * context is a single turn, keeps the end of that turn that fits in `keepTokens` and in half of the
 * context. keepRecent 0 keeps nothing. */
export function chooseSplit(messages: readonly ModelMessage[], options: SplitOptions): number {
  const n = messages.length;
  if (n === 0) return 0;
  const cuts: number[] = [];
  const turnStarts: number[] = [];
  messages.forEach((message, i) => {
    const isTurnStart = message.role === "user" && !hasToolResult(message);
    if (isTurnStart) turnStarts.push(i);
    if (i > 0 && (message.role === "assistant" || isTurnStart)) cuts.push(i);
  });
  cuts.push(n);

  // suffix[i] = estimated tokens of messages[i..]
  const suffix = new Array<number>(n + 1).fill(0);
  for (let i = n - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + estimateTokens(messages[i]);
  const fitting = (from: number, budget: number) => cuts.find((cut) => cut >= from && suffix[cut] <= budget) ?? n;

  const keepRecent = Math.max(0, Math.floor(options.keepRecent));
  if (keepRecent === 0) return n;
  for (let kept = keepRecent; kept > 0; kept--) {
    const start = turnStarts[turnStarts.length - kept];
    if (start !== undefined && start > 0) return fitting(start, options.keepTokens);
  }
  // A single turn: keep the end of it, at most half of the context, so that the summary replaces
  // most of it.
  return fitting(1, Math.min(options.keepTokens, suffix[0] / 2));
}

function hasToolResult(message: ModelMessage): boolean {
  return typeof message.content !== "string" && message.content.some((block) => block.type === "tool_result");
}

/** A rough token count (4 characters a token), enough to size what is kept. */
export function estimateTokens(message: ModelMessage): number {
  if (typeof message.content === "string") return Math.ceil(message.content.length / 4);
  let total = 0;
  for (const block of message.content) total += blockTokens(block);
  return total;
}

function blockTokens(block: ContentBlock): number {
  switch (block.type) {
    case "text":
      return Math.ceil(block.text.length / 4);
    case "image":
      return IMAGE_TOKENS;
    case "document":
      return DOCUMENT_TOKENS;
    case "tool_use":
      return Math.ceil((block.name.length + JSON.stringify(block.input).length) / 4);
    case "tool_result":
      if (typeof block.content === "string") return Math.ceil(block.content.length / 4);
      return block.content.reduce((sum, part) => sum + blockTokens(part), 0);
    case "thinking":
      return Math.ceil(block.thinking.length / 4);
    case "redacted_thinking":
      return Math.ceil(block.data.length / 4);
    case "server_tool_use":
    case "web_search_tool_result":
      return Math.ceil(JSON.stringify(block).length / 4);
  }
}
