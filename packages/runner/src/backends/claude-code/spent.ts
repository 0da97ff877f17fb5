// What a claude-code conversation has spent (/cost) at a run's end: the totals the session sent
// with the query, plus the run's part. Claude Code's result lines say what its session spent, and
// how they add up was read from the binary's own lines:
// - total_cost_usd, modelUsage and duration_api_ms are running totals of the Claude Code session:
//   they go on across the results of one process (turns, a steer taken after a result) and across
//   resumes, and a fork starts from those of the session it forks (as its transcript saved them);
// - duration_ms, num_turns and usage are the turn's own (one result per turn), and usage counts only
//   the main agent's calls;
// - a turn that made no model call (a local command: /context) has duration_api_ms 0, the running
//   total taken up again by the next call.
// A run's part of a running total is its growth since the run before (the backend's store keeps the
// totals each session reached); being absolute, the `spent` a run's end carries counts once however
// often the end is read.
import type { SDKResultMessage } from "@anthropic-ai/claude-agent-sdk";
import type { ConversationSpent, Usage } from "@harness/protocol";

/** The run's own part of the conversation's totals. */
export type RunPart = { usage: Usage; calls: number; apiMs: number; wallMs: number };

/** The time the run's turns took, as Claude Code timed each (the process's start not included). */
export function wallMsOf(results: readonly SDKResultMessage[]): number {
  return results.reduce((sum, result) => sum + count(result.duration_ms), 0);
}

/** The run's time waiting for the model: the growth of its session's running API time since
 * `previousApiMs`, what the session had before it. Without that baseline, or with a running total
 * below it (a store that lost it or predates it, a fork from an earlier point, a /clear), the
 * running total may count earlier runs' calls too: it is taken no further than the run's own time. */
export function apiMsOf(results: readonly SDKResultMessage[], previousApiMs: number | undefined): number {
  const running = runningApiMs(results);
  if (previousApiMs !== undefined && running >= previousApiMs) return running - previousApiMs;
  return Math.min(running, wallMsOf(results));
}

/** The session's running API time after the results: the highest they say, as a result that made
 * no model call (a local command such as /context) says 0. */
export function runningApiMs(results: readonly SDKResultMessage[]): number {
  return results.reduce((most, result) => Math.max(most, count(result.duration_api_ms)), 0);
}

/** The conversation's totals after the run: `before` (none: from zero) and the run's part. */
export function spentAfter(before: ConversationSpent | undefined, run: RunPart): ConversationSpent {
  const usage: Usage = { ...run.usage };
  if (before) {
    usage.inputTokens += before.usage.inputTokens;
    usage.outputTokens += before.usage.outputTokens;
    for (const key of ["cacheReadTokens", "cacheWriteTokens", "webSearchRequests", "costUsd"] as const) {
      if (before.usage[key] !== undefined || run.usage[key] !== undefined) usage[key] = (before.usage[key] ?? 0) + (run.usage[key] ?? 0);
    }
  }
  return {
    usage,
    calls: (before?.calls ?? 0) + run.calls,
    apiMs: (before?.apiMs ?? 0) + run.apiMs,
    wallMs: (before?.wallMs ?? 0) + run.wallMs,
  };
}

/** A figure of Claude Code's, a number of at least zero, else zero. */
function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
