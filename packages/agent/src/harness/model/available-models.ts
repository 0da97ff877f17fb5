// Claude Code's `availableModels`: the models a run may be set to (usually from the managed
// settings). Matched as Claude Code matches it:
// - a family alias (sonnet, opus, haiku) admits every Claude model of that family, and the alias;
// - any other entry is a model id, or the start of one up to a "-": "claude-opus-4-5" admits
//   "claude-opus-4-5-20251101" but not "claude-opus-4-50"; "opus-4-5" is short for "claude-opus-4-5";
// - a name asked for is resolved first (an alias to its model, ANTHROPIC_DEFAULT_<ALIAS>_MODEL
//   included; "[1m]" and an "anthropic/" routing prefix dropped); case does not count.
import { splitModelId } from "@harness/llm/model-prefix";
import { claudeAlias, type EnvLike } from "../../subagents/agent-model.ts";

const FAMILIES = ["sonnet", "opus", "haiku"];

/** Whether `asked` (a model id or alias, as given) is one of the models `allowed` admits. */
export function modelAllowed(asked: string, allowed: readonly string[], env: EnvLike): boolean {
  const name = plainName(asked);
  const id = modelId(name, env);
  return allowed.some((raw) => {
    const entry = plainName(raw);
    if (entry === name) return true;
    if (FAMILIES.includes(entry)) return name === entry || (isClaude(id) && id.includes(entry));
    const full = /^(sonnet|opus|haiku)-/.test(entry) ? `claude-${entry}` : modelId(entry, env);
    return id === full || id.startsWith(`${full}-`);
  });
}

/** The model the first entry of `allowed` names, as a run asks for it: the default model's stand-in
 * when the list leaves the default out. */
export function firstAllowed(allowed: readonly string[]): string | undefined {
  const first = allowed[0]?.trim();
  if (first === undefined) return undefined;
  return /^(sonnet|opus|haiku)-/i.test(first) ? `claude-${first}` : first;
}

/** Why `asked` (resolved to `model`, chosen by `from`) may not be used. */
export function notAllowedMessage(asked: string, model: string, from: string | undefined, allowed: readonly string[]): string {
  const named = `"${asked}"${plainName(model) !== plainName(asked) ? ` (${model})` : ""}${from ? `, ${from},` : ""}`;
  return `The model ${named} is not available: ${allowedSaid(allowed)}.`;
}

/** What `allowed` lets be chosen, as the reason of a refusal. */
export function allowedSaid(allowed: readonly string[]): string {
  const which = allowed.length === 0 ? "allow no model to be chosen; leave the model unset for the default" : `allow only ${allowed.map((entry) => `"${entry}"`).join(", ")}`;
  return `the settings' availableModels ${which}`;
}

/** Why `asked` (as given, by nothing but its own name) may not be used, or undefined: `allowed` admits it. */
export function modelRefusal(asked: string, allowed: readonly string[], env: EnvLike): string | undefined {
  if (modelAllowed(asked, allowed, env)) return undefined;
  const name = asked.trim().replace(/\[1m\]$/i, "");
  return notAllowedMessage(asked.trim(), claudeAlias(name, env) ?? name, undefined, allowed);
}

function plainName(name: string): string {
  return name.trim().toLowerCase().replace(/\[1m\]$/, "");
}

/** The id `name` stands for, without an "anthropic/" prefix. */
function modelId(name: string, env: EnvLike): string {
  const id = plainName(claudeAlias(name, env) ?? name);
  const { prefix, rest } = splitModelId(id);
  return prefix === "anthropic" ? rest : id;
}

/** Served by Anthropic: ids of other providers keep their prefix ("openai/…"). */
function isClaude(id: string): boolean {
  return !id.includes("/");
}
