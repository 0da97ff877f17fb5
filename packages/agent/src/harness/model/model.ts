// Which model a run uses and the provider that serves it.
import { createProviderForModel, defaultModel, type Provider } from "@harness/llm";
import type { Settings } from "../../settings/types.ts";
import { firstAllowed, modelAllowed, notAllowedMessage } from "./available-models.ts";
import { claudeAlias, resolveAgentModel, type ModelChoice, type ModelResolver } from "../../subagents/agent-model.ts";
import type { RunAgentOptions } from "../../types.ts";

/** A slash command's `model` wins, then the run's `model`, the environment's (HARNESS_MODEL, else
 * ANTHROPIC_MODEL, a settings file's `env` included), the settings' `model`, and the default model:
 * Claude Code ranks ANTHROPIC_MODEL above the settings' `model`, and the claude-code backend is
 * handed HARNESS_MODEL as ANTHROPIC_MODEL. Claude Code's aliases are understood: sonnet, opus and
 * haiku stand for the current Claude models (or ANTHROPIC_DEFAULT_<ALIAS>_MODEL), "default" for the
 * default model, "opusplan" for opus in plan mode and sonnet otherwise; a "[1m]" suffix (the
 * one-million-token context) is dropped. */
export function chooseModel(options: RunAgentOptions, settings: Settings, commandModel?: string): string {
  return resolveModelName(askedModel(options, settings, commandModel).name, options, settings);
}

export type ModelPick = { ok: true; model: string } | { ok: false; error: string };

/** chooseModel held to the settings' availableModels (`allowed`; undefined: no limit): a model
 * chosen that the list leaves out is refused; the default model, when left out, is replaced by the
 * first model of the list (Claude Code's enforceAvailableModels: its default depends on the
 * account, this harness's is one fixed model, so nothing argues for letting it past the list).
 * With an empty list only the default runs, as in Claude Code. */
export function pickModel(options: RunAgentOptions, settings: Settings, allowed: readonly string[] | undefined, commandModel?: string): ModelPick {
  const env = options.env ?? process.env;
  const asked = askedModel(options, settings, commandModel);
  const model = resolveModelName(asked.name, options, settings);
  if (allowed === undefined || modelAllowed(asked.name, allowed, env)) return { ok: true, model };
  const first = firstAllowed(allowed);
  if (asked.from === undefined) return { ok: true, model: first === undefined ? model : resolveModelName(first, options, settings) };
  return { ok: false, error: notAllowedMessage(asked.name, model, asked.from, allowed) };
}

/** The model name a run asks for, and what chose it (undefined: nothing did, it is the default). */
function askedModel(options: RunAgentOptions, settings: Settings, commandModel?: string): { name: string; from?: string } {
  const env = options.env ?? process.env;
  const named: Array<[string | undefined, string]> = [
    [commandModel, "the command's model"],
    [options.model, "the run's model"],
    [env.HARNESS_MODEL, "HARNESS_MODEL"],
    [env.ANTHROPIC_MODEL, "ANTHROPIC_MODEL"],
    [typeof settings.model === "string" ? settings.model : undefined, "the settings' model"],
  ];
  for (const [name, from] of named) {
    const wanted = name?.trim();
    if (!wanted) continue;
    // "default" stands for what would run without it: HARNESS_MODEL or ANTHROPIC_MODEL, else the default.
    if (wanted.toLowerCase() !== "default") return { name: wanted, from };
    const fromEnv = env.HARNESS_MODEL?.trim() ? "HARNESS_MODEL" : env.ANTHROPIC_MODEL?.trim() ? "ANTHROPIC_MODEL" : undefined;
    return fromEnv ? { name: defaultModel(env), from: fromEnv } : { name: "default" };
  }
  return { name: "default" };
}

function resolveModelName(name: string, options: RunAgentOptions, settings: Settings): string {
  const env = options.env ?? process.env;
  let wanted = name.toLowerCase() === "default" ? defaultModel(env) : name;
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
export function subagentModelResolver(options: RunAgentOptions, allowed?: readonly string[]): ModelResolver {
  const env = options.env ?? process.env;
  return (setting, parent, from = "its definition's model") => {
    const model = resolveAgentModel(setting, parent.model, env);
    // The parent's model (inherit, or an alias its provider cannot serve) already passed the list.
    if (allowed !== undefined && model !== parent.model && !modelAllowed(model, allowed, env)) {
      const asked = env.CLAUDE_CODE_SUBAGENT_MODEL?.trim() || setting?.trim() || model;
      return { error: notAllowedMessage(asked, model, env.CLAUDE_CODE_SUBAGENT_MODEL?.trim() ? "CLAUDE_CODE_SUBAGENT_MODEL" : from, allowed) };
    }
    return besideParent(options, model, parent);
  };
}

/** `model` on the parent's provider when it is the parent's model (or the run was given its
 * provider), else on a provider made for it. */
export function besideParent(options: RunAgentOptions, model: string, parent: { model: string; provider: Provider }): ModelChoice {
  if (model === parent.model || options.provider) return { model, provider: parent.provider };
  const routed = providerFor(options, model);
  return routed.ok ? { model: routed.model, provider: routed.provider } : { error: routed.error };
}
