// Compaction inside a run: automatically before a model call when the context has grown to the
// threshold of the model's window, or at once for /compact.
import type { ModelMessage } from "@harness/llm";
import { autoCompactEnabled, contextLimit } from "../compaction/auto-compact.ts";
import { contextWindowFor, shouldCompact } from "../compaction/context-window.ts";
import { estimateTokens } from "../compaction/split-point.ts";
import type { RunContext } from "./run-context.ts";
import { recordTurn, replaceTranscript, transcriptOf, type RunState } from "./run-state.ts";
import { memoryAtStart, startSession } from "./hooks/session-hooks.ts";
import { recentFiles, recentFilesText } from "../compaction/recent-files.ts";
import { systemReminder } from "../context/format-memory.ts";
import { deniedFileFilter } from "../permissions/path-access.ts";
import type { TextBlock } from "@harness/llm";
import { withUserText } from "../loop/transcript.ts";

export type CompactOutcome = { ok: true; summary: string; dropped: number } | { ok: false; error: string };

/** Whether the next request would fill the context window to the compaction threshold (never
 * with automatic compaction off). */
export function needsCompaction(ctx: RunContext, state: RunState, prefixTokens: number): boolean {
  const env = ctx.options.env ?? process.env;
  if (!autoCompactEnabled(ctx.setup.settings.autoCompactEnabled, env)) return false;
  return shouldCompact({ lastInputTokens: nextRequestTokens(state, prefixTokens), contextWindow: contextWindowFor(ctx.model, env), env });
}

/** With automatic compaction off, why the next request may not go: it would fill the window to
 * contextLimit (Claude Code stops there too, and the user runs /compact or /clear). */
export function contextLimitReached(ctx: RunContext, state: RunState, prefixTokens: number): string | undefined {
  const env = ctx.options.env ?? process.env;
  if (autoCompactEnabled(ctx.setup.settings.autoCompactEnabled, env)) return undefined;
  const window = contextWindowFor(ctx.model, env);
  if (nextRequestTokens(state, prefixTokens) < contextLimit(window)) return undefined;
  return `Context limit reached: the conversation nearly fills the model's ${window.toLocaleString("en-US")}-token context window and automatic compaction is off (autoCompactEnabled: false or DISABLE_AUTO_COMPACT); run /compact or /clear to continue.`;
}

/** What the next request will read. Uses what the previous request of the run read, with an
 * estimate of what was added since (the reply, and tool results that may be large), or, before the
 * first one, an estimate of the whole request. */
function nextRequestTokens(state: RunState, prefixTokens: number): number {
  if (state.lastRequestTokens !== undefined) return state.lastRequestTokens + estimateAll(state.messages.slice(state.lastRequestMessages ?? state.messages.length));
  return state.messages.length > 1 ? prefixTokens + estimateAll(state.messages) : 0;
}

/** Runs the PreCompact hooks, then summarizes the older part of the conversation. On success the
 * run goes on with the compacted transcript, as in Claude Code with the files worked with last as
 * they are now (see recentFiles), after the PostCompact hooks, the InstructionsLoaded hooks of the
 * memory files (beside the run) and the SessionStart hooks with
 * source "compact" (their additional context joins the conversation: what must survive every
 * compaction); on failure the conversation is left as it was. */
export async function compactConversation(ctx: RunContext, state: RunState, trigger: "auto" | "manual", instructions: string): Promise<CompactOutcome> {
  const { signal } = ctx.options;
  await ctx.hooks.run("PreCompact", { trigger, custom_instructions: instructions }, signal);
  // Imported once a compaction is due: the summarizer is no part of a run that needs none.
  const { compact } = await import("../compaction/compact.ts");
  const started = Date.now();
  const result = await compact({
    transcript: transcriptOf(state),
    provider: ctx.provider,
    model: ctx.model,
    contextWindow: contextWindowFor(ctx.model, ctx.options.env ?? process.env),
    todos: ctx.resources.toolState.todos,
    ...(instructions && { instructions }),
    signal,
    onWarning: (message) => ctx.notice("warning", message),
  });
  state.spend.apiMs += Date.now() - started;
  if (result.usage) recordTurn(state, ctx.model, result.usage);
  if ("error" in result) return { ok: false, error: result.error };
  replaceTranscript(state, result.transcript);
  const context: TextBlock[] = [];
  const files = recentFilesText(await recentFiles(ctx.resources.toolState, deniedFileFilter(ctx.permissions)), ctx.setup.cwd);
  if (files) context.push({ type: "text", text: systemReminder(files) });
  await ctx.hooks.run("PostCompact", { trigger, compact_summary: result.summary }, signal);
  if (!ctx.subagent) {
    // The memory files go on with the compacted conversation, as Claude Code loads them again.
    const started = await startSession(ctx.hooks, "compact", signal, memoryAtStart(ctx.setup.memory, state));
    if (started.ok) context.push(...started.context);
  }
  if (context.length > 0) state.messages = withUserText(state.messages, "", context);
  return { ok: true, summary: result.summary, dropped: result.dropped };
}

function estimateAll(messages: readonly ModelMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateTokens(message);
  return total;
}
