// Provider settings from options and the environment. A malformed value is a configuration error
// and throws at construction time, naming the variable, rather than surfacing mid-run.

export type EnvLike = Readonly<Record<string, string | undefined>>;

export const DEFAULT_MODEL = "claude-sonnet-4-6";
export const DEFAULT_MAX_TOKENS = 32_000;
export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_RETRY_BASE_MS = 500;
/** A reply stream silent this long is given up on (see retry/stream-with-retries.ts). Anthropic sends a
 * ping every few seconds while a reply is under way. */
export const DEFAULT_STREAM_IDLE_MS = 120_000;

/** The model to use when none is configured: HARNESS_MODEL, else claude-sonnet-4-6. */
export function defaultModel(env: EnvLike = process.env): string {
  return env.HARNESS_MODEL?.trim() || env.ANTHROPIC_MODEL?.trim() || DEFAULT_MODEL;
}

export type RetrySettings = { maxRetries: number; retryBaseMs: number; streamIdleMs: number };

export function resolveRetrySettings(options: { maxRetries?: number; retryBaseMs?: number; streamIdleMs?: number }, env: EnvLike): RetrySettings {
  const streamIdleMs = wholeNumber("streamIdleMs", options.streamIdleMs) ?? wholeNumberFromEnv(env, "HARNESS_STREAM_IDLE_MS") ?? DEFAULT_STREAM_IDLE_MS;
  if (streamIdleMs < 1) throw new RangeError(`HARNESS_STREAM_IDLE_MS must be at least 1, got ${streamIdleMs}`);
  return {
    maxRetries: wholeNumber("maxRetries", options.maxRetries) ?? wholeNumberFromEnv(env, "HARNESS_MODEL_RETRIES") ?? DEFAULT_MAX_RETRIES,
    retryBaseMs: wholeNumber("retryBaseMs", options.retryBaseMs) ?? wholeNumberFromEnv(env, "HARNESS_RETRY_BASE_MS") ?? DEFAULT_RETRY_BASE_MS,
    streamIdleMs,
  };
}

export function resolveMaxTokens(value: number | undefined): number {
  const n = wholeNumber("maxTokens", value) ?? DEFAULT_MAX_TOKENS;
  if (n < 1) throw new RangeError(`maxTokens must be at least 1, got ${n}`);
  return n;
}

function wholeNumber(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number of at least 0, got ${value}`);
  return value;
}

function wholeNumberFromEnv(env: EnvLike, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw new RangeError(`${name} must be a whole number of at least 0, got ${JSON.stringify(env[name])}`);
  return Number(raw);
}
