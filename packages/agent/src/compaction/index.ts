export { compact, DEFAULT_KEEP_RECENT, DEFAULT_KEEP_TOKENS, SUMMARY_MAX_TOKENS } from "./compact.ts";
export type { CompactOptions, CompactResult } from "./compact.ts";
export { contextMessages, contextStart, rejoinTranscript } from "./context-messages.ts";
export {
  CLAUDE_CONTEXT_WINDOW,
  compactThreshold,
  contextTokensOf,
  contextWindowFor,
  DEFAULT_COMPACT_THRESHOLD,
  DEFAULT_CONTEXT_WINDOW,
  LONG_CONTEXT_WINDOW,
  shouldCompact,
} from "./context-window.ts";
export type { ShouldCompactInput } from "./context-window.ts";
export { chooseSplit, estimateTokens } from "./split-point.ts";
export type { AnyTranscriptMessage, CompactMeta, TranscriptEntry } from "./types.ts";
