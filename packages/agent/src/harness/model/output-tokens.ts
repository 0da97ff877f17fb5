// Claude Code's limits on what the model writes, from the environment or a settings file's `env`:
// CLAUDE_CODE_MAX_OUTPUT_TOKENS, the most tokens a reply may have (max_tokens), and
// MAX_THINKING_TOKENS, the thinking budget (0 turns thinking off).
import type { ModelRequest } from "@harness/llm";
import { wholeSetting, type EnvSetting } from "../../env/number.ts";
import type { RunAgentOptions } from "../../types.ts";

type Env = Readonly<Record<string, string | undefined>>;

export function outputTokensSetting(env: Env): EnvSetting {
  return wholeSetting(env, "CLAUDE_CODE_MAX_OUTPUT_TOKENS", "tokens", 1);
}

export function thinkingTokensSetting(env: Env): EnvSetting {
  return wholeSetting(env, "MAX_THINKING_TOKENS", "tokens", 0);
}

/** The thinking budget Claude Code gives when thinking is on without a budget of its own: the
 * settings' `alwaysThinkingEnabled`, or `ultrathink` in the prompt. */
export const DEFAULT_THINKING_BUDGET = 31_999;

export { asksToThink } from "../../ultrathink.ts";

/** The request's max_tokens and thinking: the run's own thinking or effort wins over
 * MAX_THINKING_TOKENS (a session that chose an effort keeps it), which wins over thinking turned
 * on without a budget (`thinkingOn`: the settings' alwaysThinkingEnabled, or "ultrathink" in the
 * prompt; DEFAULT_THINKING_BUDGET). A value that is not a whole number leaves the default
 * (`harness run` and `harness serve` refuse it at start). */
export function withOutputLimits(request: ModelRequest, options: Pick<RunAgentOptions, "env" | "thinking" | "effort">, thinkingOn = false): ModelRequest {
  const env = options.env ?? process.env;
  const maxTokens = outputTokensSetting(env).value;
  if (maxTokens !== undefined) request.maxTokens = maxTokens;
  if (options.thinking) request.thinking = options.thinking;
  else if (!options.effort) {
    const budget = thinkingTokensSetting(env).value ?? (thinkingOn ? DEFAULT_THINKING_BUDGET : undefined);
    if (budget !== undefined) request.thinking = { budgetTokens: budget };
  }
  if (options.effort) request.effort = options.effort;
  return request;
}
