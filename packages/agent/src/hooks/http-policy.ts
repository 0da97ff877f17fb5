// Claude Code's limits on http hooks: `allowedHttpHookUrls` (where they may send the event) and
// `httpHookAllowedEnvVars` (which environment variables their headers may carry).
import { urlAllowedBy, urlPatternRegExp } from "../glob-regexp.ts";
import { labelOf } from "./http-label.ts";
import type { Hook, HookDiagnostic, HooksConfig } from "./types.ts";

/** Undefined: no limit. An empty list of URLs allows no http hook; of variables, none in headers. */
export type HttpHookPolicy = { urls?: string[]; envVars?: string[] };

/** A settings file the policy reads, and whether it comes with the repository. */
export type HttpHookPolicySource = { path: string; fromRepository: boolean; settings: Record<string, unknown> };

/** The policy of the settings. Each list is the union of those of the user's and managed files; a
 * repository's own files (project and local) count only when neither sets it, since they bring the
 * very hooks the lists hold in check: they may narrow what the hooks do, never widen it. */
export function httpHookPolicyOf(sources: readonly HttpHookPolicySource[]): { policy: HttpHookPolicy; diagnostics: HookDiagnostic[] } {
  const diagnostics: HookDiagnostic[] = [];
  const policy: HttpHookPolicy = {};
  for (const [key, field] of [["allowedHttpHookUrls", "urls"], ["httpHookAllowedEnvVars", "envVars"]] as const) {
    const listOf = (source: HttpHookPolicySource): string[] | undefined => {
      const raw = source.settings[key];
      if (raw === undefined) return undefined;
      if (Array.isArray(raw) && raw.every((item) => typeof item === "string")) return raw;
      // A list that cannot be read allows nothing: the limit was meant to hold.
      diagnostics.push({ file: source.path, key, message: "must be a list of strings; read as an empty list" });
      return [];
    };
    const union = (from: readonly HttpHookPolicySource[]) => {
      const lists = from.map(listOf).filter((list) => list !== undefined);
      return lists.length === 0 ? undefined : lists.flat();
    };
    const own = union(sources.filter((source) => !source.fromRepository));
    const list = own ?? union(sources.filter((source) => source.fromRepository));
    if (own !== undefined) {
      for (const source of sources) {
        if (source.fromRepository && source.settings[key] !== undefined) diagnostics.push({ file: source.path, key, message: "is ignored: the user's or managed settings set it, and a repository's settings cannot widen it" });
      }
    }
    if (list !== undefined) policy[field] = list;
  }
  return { policy, diagnostics };
}

/** `config` with the policy applied: an http hook to a URL no pattern of `urls` matches is left out
 * (and named), and each hook's allowedEnvVars keeps only the names `envVars` lists. */
export function applyHttpHookPolicy(config: HooksConfig, policy: HttpHookPolicy): { config: HooksConfig; left: string[] } {
  if (policy.urls === undefined && policy.envVars === undefined) return { config, left: [] };
  const patterns = policy.urls?.map(urlPatternRegExp);
  const envVars = policy.envVars && new Set(policy.envVars);
  const left: string[] = [];
  const out: HooksConfig = {};
  for (const [event, groups] of Object.entries(config) as [keyof HooksConfig, NonNullable<HooksConfig[keyof HooksConfig]>][]) {
    const kept = groups.flatMap((group) => {
      const hooks = group.hooks.flatMap((hook): Hook[] => {
        if (hook.type !== "http") return [hook];
        if (patterns && !patterns.some((pattern) => urlAllowedBy(pattern, hook.url))) {
          left.push(`The ${event} http hook to ${labelOf(hook.url)} is left out: allowedHttpHookUrls does not list its URL.`);
          return [];
        }
        if (!envVars || hook.allowedEnvVars === undefined) return [hook];
        return [{ ...hook, allowedEnvVars: hook.allowedEnvVars.filter((name) => envVars.has(name)) }];
      });
      return hooks.length > 0 ? [{ ...group, hooks }] : [];
    });
    if (kept.length > 0) out[event] = kept;
  }
  return { config: out, left };
}
