// Whether a request marks its stable prefix for the provider's prompt cache (assemble.ts): yes,
// unless Claude Code's switches say no: DISABLE_PROMPT_CACHING for every model, or
// DISABLE_PROMPT_CACHING_HAIKU / _SONNET / _OPUS for the models of that family. Read from the
// environment the harness itself reads (the run's, with the settings' `env` over it).
import { envSwitch } from "../env/number.ts";

type Env = Readonly<Record<string, string | undefined>>;

const FAMILIES = ["haiku", "sonnet", "opus"] as const;

export function promptCachingOn(env: Env, model: string): boolean {
  if (envSwitch(env, "DISABLE_PROMPT_CACHING")) return false;
  const id = model.toLowerCase();
  return !FAMILIES.some((family) => id.includes(family) && envSwitch(env, `DISABLE_PROMPT_CACHING_${family.toUpperCase()}`));
}
