// When to compact: the size of the model's context window, and how full it may get.
import type { Usage } from "@harness/protocol";
import { numberSetting, wholeSetting, type EnvSetting } from "../env/number.ts";

export type EnvLike = Readonly<Record<string, string | undefined>>;

export const DEFAULT_COMPACT_THRESHOLD = 0.8;
export const CLAUDE_CONTEXT_WINDOW = 200_000;
export const LONG_CONTEXT_WINDOW = 1_000_000;
/** For models this table does not know. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

// Non-Claude families by id prefix (after any provider prefix), first match wins.
const KNOWN_WINDOWS: readonly [RegExp, number][] = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^gpt-4o/, 128_000],
  [/^o[134](-|$)/, 200_000],
  [/^gemini-(1\.5|2)/, 1_048_576],
];

/** The context window of a model, in tokens. HARNESS_CONTEXT_WINDOW (a whole number) overrides;
 * Claude models have 200k, or 1M when the id asks for it ("[1m]", "-1m"); a few other families are
 * known; anything else gets DEFAULT_CONTEXT_WINDOW. */
export function contextWindowFor(model: string, env: EnvLike = process.env): number {
  const forced = contextWindowSetting(env).value;
  if (forced !== undefined) return forced;
  const id = model.trim().toLowerCase();
  const bare = id.slice(id.lastIndexOf("/") + 1);
  if (/\[1m\]|[-_:]1m\b/.test(id)) return LONG_CONTEXT_WINDOW;
  if (id.includes("claude")) return CLAUDE_CONTEXT_WINDOW;
  for (const [pattern, size] of KNOWN_WINDOWS) if (pattern.test(bare)) return size;
  return DEFAULT_CONTEXT_WINDOW;
}

/** HARNESS_CONTEXT_WINDOW: a whole number of tokens. */
export function contextWindowSetting(env: EnvLike): EnvSetting {
  return wholeSetting(env, "HARNESS_CONTEXT_WINDOW", "tokens", 1);
}

/** HARNESS_COMPACT_THRESHOLD as a fraction of the window: given as one (0.75) or as a percentage (75). */
export function compactThresholdSetting(env: EnvLike): EnvSetting {
  const setting = numberSetting(env, "HARNESS_COMPACT_THRESHOLD", (n) => n > 0 && n <= 100, "a fraction (0.75) or a percentage (75) of the context window");
  return setting.value === undefined ? setting : { value: setting.value > 1 ? setting.value / 100 : setting.value };
}

/** Claude Code's CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: the percentage of the window (1 to 100) at which
 * to compact, as a fraction. */
export function autoCompactPercentSetting(env: EnvLike): EnvSetting {
  const setting = numberSetting(env, "CLAUDE_AUTOCOMPACT_PCT_OVERRIDE", (n) => n >= 1 && n <= 100, "a percentage of the context window from 1 to 100");
  return setting.value === undefined ? setting : { value: setting.value / 100 };
}

/** The fraction of the context window at which to compact: HARNESS_COMPACT_THRESHOLD, else
 * CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, which, as in Claude Code, can only bring compaction earlier
 * (above DEFAULT_COMPACT_THRESHOLD it has no effect), else DEFAULT_COMPACT_THRESHOLD. A value that
 * cannot be used is ignored (serve and run refuse it). */
export function compactThreshold(env: EnvLike = process.env): number {
  const own = compactThresholdSetting(env).value;
  if (own !== undefined) return own;
  return Math.min(autoCompactPercentSetting(env).value ?? DEFAULT_COMPACT_THRESHOLD, DEFAULT_COMPACT_THRESHOLD);
}

export type ShouldCompactInput = {
  /** Tokens the last model request read: input + cache read + cache write (see contextTokensOf). */
  lastInputTokens: number;
  contextWindow: number;
  /** Fraction of the window; default compactThreshold(env). */
  threshold?: number;
  env?: EnvLike;
};

/** Whether the conversation has grown to the threshold of the context window. */
export function shouldCompact(input: ShouldCompactInput): boolean {
  const threshold = input.threshold ?? compactThreshold(input.env);
  if (!(input.contextWindow > 0) || !(input.lastInputTokens > 0)) return false;
  return input.lastInputTokens >= input.contextWindow * threshold;
}

/** The context one model request used: everything it read, cached or not. Give it one request's
 * usage, not a run's sum. */
export function contextTokensOf(usage: Usage): number {
  return usage.inputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
}

