// What a statusLine command reads on its stdin: Claude Code's JSON, filled from the session's state
// as the chat follows it. A field the chat cannot know is left out rather than made up: the
// transcript's path (the conversation is kept in the server's store, or by a runner, in no file the
// chat knows), and the last call's usage in a state kept before sessions carried it.
import type { HarnessState, Usage } from "@harness/protocol";
import { contextWindowFor } from "@harness/agent/context-window";
import { linesChanged } from "./status-lines.ts";
import { modelDisplayName } from "./model-display-name.ts";

export type StatusLineContext = {
  sessionId: string;
  /** The project: the command's working directory. */
  cwd: string;
  version: string;
  /** The model the settings name, when the session's config does not. */
  model?: string;
  outputStyle?: string;
  env: NodeJS.ProcessEnv;
};

/** Claude Code's fixed mark, whatever the model's context window. */
const LARGE_CONTEXT_TOKENS = 200_000;

export function statusLineInput(state: HarnessState | undefined, o: StatusLineContext): Record<string, unknown> {
  const model = state?.config?.model ?? o.model;
  const usage = state?.spent?.usage ?? state?.usage;
  // Left out when no call's price is known; with calls of unknown price too (usage.unpricedCalls),
  // what the others cost.
  const cost = usage?.costUsd;
  const input = usage ? inputOf(usage) : 0;
  const lines = linesChanged(state);
  const size = model ? contextWindowFor(model, o.env) : undefined;
  const last = state?.lastCall;
  // Before the first model call Claude Code says null; a state with usage but no last call only
  // lacks it.
  const current = last ? currentUsage(last, size) : usage ? undefined : { current_usage: null };
  return {
    session_id: o.sessionId,
    cwd: o.cwd,
    ...(model && { model: { id: model, display_name: modelDisplayName(model) } }),
    workspace: { current_dir: o.cwd, project_dir: o.cwd },
    version: o.version,
    output_style: { name: o.outputStyle ?? "default" },
    cost: {
      ...(cost !== undefined && { total_cost_usd: cost }),
      ...(state?.spent && { total_duration_ms: Math.round(state.spent.wallMs), total_api_duration_ms: Math.round(state.spent.apiMs) }),
      total_lines_added: lines.added,
      total_lines_removed: lines.removed,
    },
    context_window: {
      total_input_tokens: input,
      total_output_tokens: usage?.outputTokens ?? 0,
      ...(size !== undefined && { context_window_size: size }),
      ...current,
    },
    ...(current && { exceeds_200k_tokens: last ? inputOf(last) + last.outputTokens > LARGE_CONTEXT_TOKENS : false }),
  };
}

/** Tokens a call read: its prompt, cached or not. */
function inputOf(usage: Usage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

/** The context window's fields that the last call's usage gives: how full the context was then, in
 * whole percents of `size` (what the call read, not what it wrote). */
function currentUsage(last: Usage, size: number | undefined): Record<string, unknown> {
  const used = size ? Math.min(100, Math.round((inputOf(last) / size) * 100)) : undefined;
  return {
    current_usage: {
      input_tokens: last.inputTokens,
      output_tokens: last.outputTokens,
      cache_creation_input_tokens: last.cacheWriteTokens ?? 0,
      cache_read_input_tokens: last.cacheReadTokens ?? 0,
    },
    ...(used !== undefined && { used_percentage: used, remaining_percentage: 100 - used }),
  };
}

/** What of the state makes the status line run again: a new or ended reply (a /compact ends one
 * too), a tool call of the reply that ended, the model, the permission mode, what was spent. */
export function statusLineKey(state: HarnessState | undefined): string {
  const last = state?.messages.findLast((m) => m.role === "assistant");
  const ended = last?.toolCalls?.filter((call) => call.status !== "running" && call.status !== "awaiting-approval").length;
  return JSON.stringify([state?.messages.length, last?.id, last?.status, ended, state?.status, state?.config?.model, state?.config?.permissionMode, state?.usage, state?.spent, state?.lastCall]);
}
