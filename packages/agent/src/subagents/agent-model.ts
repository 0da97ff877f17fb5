// Which model a sub-agent runs on, from its definition's `model` setting, as in Claude Code.
import type { Provider } from "@harness/llm";

export type EnvLike = Readonly<Record<string, string | undefined>>;

/** The model ids Claude Code's aliases stand for, unless ANTHROPIC_DEFAULT_<ALIAS>_MODEL says otherwise. */
export const MODEL_ALIASES: Readonly<Record<"sonnet" | "opus" | "haiku", string>> = {
  sonnet: "claude-sonnet-4-6",
  opus: "claude-opus-4-6",
  haiku: "claude-haiku-4-5",
};

export type ModelChoice = { model: string; provider: Provider } | { error: string };

/** Turns an agent's model setting into the model and provider to run it with. `from` says what
 * chose the setting, for a refusal (default: the agent's definition). */
export type ModelResolver = (setting: string | undefined, parent: { model: string; provider: Provider }, from?: string) => ModelChoice;

/** The model id for an agent's `model` setting:
 * - CLAUDE_CODE_SUBAGENT_MODEL, when set, wins for every sub-agent;
 * - absent or "inherit": the parent's model;
 * - "sonnet" | "opus" | "haiku": the Claude model it stands for when the parent runs a Claude model;
 *   otherwise the parent's model, since the parent's provider may serve no Claude model;
 * - anything else: taken as a model id. */
export function resolveAgentModel(setting: string | undefined, parentModel: string, env: EnvLike = process.env): string {
  return modelAsked(env.CLAUDE_CODE_SUBAGENT_MODEL?.trim() || setting?.trim(), parentModel, env);
}

/** The model `wanted` names, run beside `parentModel`: the parent's when absent or "inherit"; an
 * alias's Claude model when the parent runs a Claude model, else the parent's (its provider may
 * serve no Claude model); anything else as it is. */
function modelAsked(wanted: string | undefined, parentModel: string, env: EnvLike): string {
  if (!wanted || wanted.toLowerCase() === "inherit") return parentModel;
  const aliased = claudeAlias(wanted, env);
  if (aliased === undefined) return wanted;
  return /claude/i.test(parentModel) ? aliased : parentModel;
}

/** The model a Claude Code alias (sonnet, opus, haiku, in any case) stands for, or undefined for
 * anything else. */
export function claudeAlias(name: string, env: EnvLike): string | undefined {
  const alias = name.toLowerCase();
  if (alias !== "sonnet" && alias !== "opus" && alias !== "haiku") return undefined;
  return env[`ANTHROPIC_DEFAULT_${alias.toUpperCase()}_MODEL`]?.trim() || MODEL_ALIASES[alias];
}

/** The default resolver: resolveAgentModel, on the parent's provider. */
export function defaultModelResolver(env: EnvLike = process.env): ModelResolver {
  return (setting, parent) => ({ model: resolveAgentModel(setting, parent.model, env), provider: parent.provider });
}

/** A prompt or agent hook's model: its `model` setting, else ANTHROPIC_SMALL_FAST_MODEL, else
 * haiku (Claude Code's small fast model). An alias stands for a Claude model only when the run's
 * own model is a Claude model; otherwise the hook asks the run's model, since its provider may
 * serve no Claude model. CLAUDE_CODE_SUBAGENT_MODEL is for sub-agents and does not count here. */
export function resolveHookModel(setting: string | undefined, runModel: string, env: EnvLike = process.env): string {
  return modelAsked(setting?.trim() || env.ANTHROPIC_SMALL_FAST_MODEL?.trim() || "haiku", runModel, env);
}
