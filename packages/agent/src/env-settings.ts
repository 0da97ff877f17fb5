// The environment variables that tune runs (model endpoints and retries, context window,
// compaction, deferred tools). Each is read by one function of the code that uses it, which says what is wrong with a
// value it cannot use; runs then fall back to the default, so that a run never fails on them, and
// `harness serve` and `harness run` ask the same functions first, so that a mistyped value is
// refused at start, naming the variable, rather than silently ignored.
import { baseUrlProblems, customHeadersProblems, resolveRetrySettings } from "@harness/llm";
import { compactThresholdSetting, contextWindowSetting } from "./compaction/context-window.ts";
import { outputTokensSetting, thinkingTokensSetting } from "./harness/output-tokens.ts";
import { deferThresholdSetting } from "./tool-registry/registry.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** What is wrong with the run settings in `env`, one line each (none: all usable). */
export function envSettingProblems(env: Env): string[] {
  const problems: string[] = [...baseUrlProblems(env), ...customHeadersProblems(env)];
  try {
    resolveRetrySettings({}, env);
  } catch (error) {
    problems.push((error as Error).message);
  }
  for (const setting of [contextWindowSetting(env), compactThresholdSetting(env), deferThresholdSetting(env), outputTokensSetting(env), thinkingTokensSetting(env)]) {
    if (setting.problem) problems.push(setting.problem);
  }
  return problems;
}
