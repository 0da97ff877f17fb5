// The environment variables that tune runs (model retries, context window, compaction, deferred
// tools), checked as a whole. The code that reads each one falls back to its default on a value it
// cannot use, so a run never fails on them; `harness serve` and `harness run` check them first, so
// that a mistyped value is refused at start, naming the variable, rather than silently ignored.
import { resolveRetrySettings } from "@harness/llm";

type Env = Readonly<Record<string, string | undefined>>;

const WHOLE = /^\d{1,9}$/;

/** What is wrong with the run settings in `env`, one line each (none: all usable). */
export function envSettingProblems(env: Env): string[] {
  const problems: string[] = [];
  try {
    resolveRetrySettings({}, env);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const text = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const window = text("HARNESS_CONTEXT_WINDOW");
  if (window !== undefined && !(WHOLE.test(window) && Number(window) > 0)) {
    problems.push(`HARNESS_CONTEXT_WINDOW must be a whole number of tokens, got ${JSON.stringify(env.HARNESS_CONTEXT_WINDOW)}`);
  }
  const threshold = text("HARNESS_COMPACT_THRESHOLD");
  if (threshold !== undefined) {
    const value = Number(threshold);
    if (!(Number.isFinite(value) && value > 0 && value <= 100)) {
      problems.push(`HARNESS_COMPACT_THRESHOLD must be a fraction (0.75) or a percentage (75) of the context window, got ${JSON.stringify(env.HARNESS_COMPACT_THRESHOLD)}`);
    }
  }
  const defer = text("HARNESS_DEFER_TOOLS_AFTER");
  if (defer !== undefined && !WHOLE.test(defer)) {
    problems.push(`HARNESS_DEFER_TOOLS_AFTER must be a whole number of tools, got ${JSON.stringify(env.HARNESS_DEFER_TOOLS_AFTER)}`);
  }
  return problems;
}
