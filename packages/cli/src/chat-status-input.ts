// What a statusLine command reads on its stdin: Claude Code's JSON, filled from the session's state
// as the chat follows it. A field the chat cannot know (the transcript's path, the lines edited, the
// last call's usage) is left out rather than made up.
import type { HarnessState } from "@harness/protocol";
import { contextWindowFor } from "@harness/agent/context-window";

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

export function statusLineInput(state: HarnessState | undefined, o: StatusLineContext): Record<string, unknown> {
  const model = state?.config?.model ?? o.model;
  const usage = state?.spent?.usage ?? state?.usage;
  const cost = usage?.costUsd;
  const input = usage ? usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0) : 0;
  return {
    session_id: o.sessionId,
    cwd: o.cwd,
    ...(model && { model: { id: model, display_name: model } }),
    workspace: { current_dir: o.cwd, project_dir: o.cwd },
    version: o.version,
    output_style: { name: o.outputStyle ?? "default" },
    cost: {
      ...(cost !== undefined && { total_cost_usd: cost }),
      ...(state?.spent && { total_duration_ms: Math.round(state.spent.wallMs), total_api_duration_ms: Math.round(state.spent.apiMs) }),
    },
    context_window: {
      total_input_tokens: input,
      total_output_tokens: usage?.outputTokens ?? 0,
      ...(model && { context_window_size: contextWindowFor(model, o.env) }),
    },
  };
}

/** What of the state makes the status line run again: a new or ended reply (a /compact ends one
 * too), the model, the permission mode, what was spent. */
export function statusLineKey(state: HarnessState | undefined): string {
  const last = state?.messages.findLast((m) => m.role === "assistant");
  return JSON.stringify([state?.messages.length, last?.id, last?.status, state?.status, state?.config?.model, state?.config?.permissionMode, state?.usage, state?.spent]);
}
