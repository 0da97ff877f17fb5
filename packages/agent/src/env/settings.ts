// The environment variables that tune runs (model endpoints and retries, context window,
// compaction, deferred tools). Each is read by one function of the code that uses it, which says what is wrong with a
// value it cannot use; runs then fall back to the default, so that a run never fails on them, and
// `harness serve` and `harness run` ask the same functions first, so that a mistyped value is
// refused at start, naming the variable, rather than silently ignored.
import { baseUrlProblems, bedrockProblems, customHeadersProblems, networkProblem, resolveRetrySettings, vertexProblems } from "@harness/llm";
import { autoCompactPercentSetting, compactThresholdSetting, contextWindowSetting } from "../compaction/context-window.ts";
import { outputTokensSetting, thinkingTokensSetting } from "../harness/model/output-tokens.ts";
import { wholeSetting } from "./number.ts";
import { deferThresholdSetting } from "../tool-registry/registry.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** Claude Code's limits on commands and MCP servers, each read where it is used (tools/shell/bash.ts,
 * mcp/manager.ts), which goes on with its default on a value it cannot use. */
const CLAUDE_CODE_LIMITS = [
  ["BASH_DEFAULT_TIMEOUT_MS", "milliseconds"],
  ["BASH_MAX_TIMEOUT_MS", "milliseconds"],
  ["BASH_MAX_OUTPUT_LENGTH", "characters"],
  ["MCP_TIMEOUT", "milliseconds"],
  ["MCP_TOOL_TIMEOUT", "milliseconds"],
  ["MAX_MCP_OUTPUT_TOKENS", "tokens"],
] as const;

/** What is wrong with the run settings in `env`, one line each (none: all usable). */
export function envSettingProblems(env: Env): string[] {
  const proxy = networkProblem(env);
  const problems: string[] = [...baseUrlProblems(env), ...customHeadersProblems(env), ...vertexProblems(env), ...bedrockProblems(env), ...(proxy ? [proxy] : [])];
  try {
    resolveRetrySettings({}, env);
  } catch (error) {
    problems.push((error as Error).message);
  }
  const helperTtl = wholeSetting(env, "CLAUDE_CODE_API_KEY_HELPER_TTL_MS", "milliseconds", 0);
  for (const setting of [contextWindowSetting(env), compactThresholdSetting(env), autoCompactPercentSetting(env), deferThresholdSetting(env), outputTokensSetting(env), thinkingTokensSetting(env), helperTtl, ...CLAUDE_CODE_LIMITS.map(([name, unit]) => wholeSetting(env, name, unit, 1))]) {
    if (setting.problem) problems.push(setting.problem);
  }
  return problems;
}
