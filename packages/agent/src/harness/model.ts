// Which model a run uses and the provider that serves it.
import { createProviderForModel, defaultModel, type Provider } from "@harness/llm";
import type { Settings } from "../settings/types.ts";
import { claudeAlias, resolveAgentModel, type ModelChoice, type ModelResolver } from "../subagents/agent-model.ts";
import type { RunAgentOptions } from "../types.ts";

/** A slash command's `model` wins, then the run's `model`, the environment's (HARNESS_MODEL, else
 * ANTHROPIC_MODEL, a settings file's `env` included), the settings' `model`, and the default model:
 * Claude Code ranks ANTHROPIC_MODEL above the settings' `model`, and the claude-code backend is
 * handed HARNESS_MODEL as ANTHROPIC_MODEL. Claude Code's aliases are understood: sonnet, opus and
 * haiku stand for the current Claude models (or ANTHROPIC_DEFAULT_<ALIAS>_MODEL), "default" for the
 * default model, "opusplan" for opus in plan mode and sonnet otherwise; a "[1m]" suffix (the
 * one-million-token context) is dropped. */
export function chooseModel(options: RunAgentOptions, settings: Settings, commandModel?: string): string {
  const env = options.env ?? process.env;
  const fromEnv = env.HARNESS_MODEL?.trim() || env.ANTHROPIC_MODEL?.trim();
  let wanted = commandModel?.trim() || options.model || fromEnv || (typeof settings.model === "string" && settings.model.trim()) || "default";
  if (wanted.toLowerCase() === "default") wanted = defaultModel(env);
  wanted = wanted.replace(/\[1m\]$/i, "");
  if (wanted.toLowerCase() === "opusplan") wanted = (options.permissionMode ?? settings.permissions?.defaultMode) === "plan" ? "opus" : "sonnet";
  return claudeAlias(wanted, env) ?? wanted;
}

export type ModelProvider = { ok: true; provider: Provider; model: string } | { ok: false; error: string };

/** The run's provider, else one made for `model`; `model` comes back as requests name it (without a
 * routing prefix such as "openai/"). */
export function providerFor(options: RunAgentOptions, model: string): ModelProvider {
  if (options.provider) return { ok: true, provider: options.provider, model };
  const routed = createProviderForModel(model, options.env ?? process.env, options.providerOptions);
  return routed.ok ? { ok: true, provider: routed.provider, model: routed.model } : { ok: false, error: routed.error };
}

/** Sub-agents' models: as resolveAgentModel says, on the parent's provider when the model is the
 * parent's (or the run was given its provider), else on a provider made for it. */
export function subagentModelResolver(options: RunAgentOptions): ModelResolver {
  const env = options.env ?? process.env;
  return (setting, parent) => besideParent(options, resolveAgentModel(setting, parent.model, env), parent);
}

/** `model` on the parent's provider when it is the parent's model (or the run was given its
 * provider), else on a provider made for it. */
export function besideParent(options: RunAgentOptions, model: string, parent: { model: string; provider: Provider }): ModelChoice {
  if (model === parent.model || options.provider) return { model, provider: parent.provider };
  const routed = providerFor(options, model);
  return routed.ok ? { model: routed.model, provider: routed.provider } : { error: routed.error };
}
