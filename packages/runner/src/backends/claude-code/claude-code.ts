// The claude-code backend: Claude Code itself (the binary that ships with @anthropic-ai/claude-agent-sdk)
// runs the agent. Loaded on first use, like the builtin backend, so that importing the runner
// package stays cheap.
import type { SettingSource } from "@anthropic-ai/claude-agent-sdk";
import type { Backend } from "../../backend.ts";

export { findClaudeCodeExecutable } from "./options.ts";

export type ClaudeCodeBackendOptions = {
  /** The claude binary. Default: the one of the SDK's per-platform package. */
  executable?: string;
  /** Where ANTHROPIC_API_KEY (when the query has none), ANTHROPIC_BASE_URL and PATH are read from.
   * Default: process.env. Nothing else of it reaches Claude Code. */
  runnerEnv?: Record<string, string | undefined>;
  /** Further variables for the Claude Code process (e.g. CLAUDE_CODE_MAX_RETRIES). */
  extraEnv?: Record<string, string>;
  /** Which of Claude Code's settings files it reads. Default: all ("user" is the state directory's
   * own, never the runner's ~/.claude; "project" and "local" are the workspace's .claude/). */
  settingSources?: SettingSource[];
  /** How long an interrupted run may take to stop before its process is killed. Default 5 s. */
  interruptGraceMs?: number;
  /** Limit of a rewind (it starts Claude Code on the session). Default 60 s. */
  rewindTimeoutMs?: number;
};

export function claudeCodeBackend(options: ClaudeCodeBackendOptions = {}): Backend {
  const runnerEnv = () => options.runnerEnv ?? process.env;
  const settingSources = options.settingSources ?? ["user", "project", "local"];
  return {
    name: "claude-code",
    async run(query, ctx) {
      const { runClaudeCode } = await import("./run.ts");
      return runClaudeCode(query, ctx, {
        executable: options.executable,
        runnerEnv: runnerEnv(),
        extraEnv: options.extraEnv,
        settingSources,
        interruptGraceMs: options.interruptGraceMs ?? 5000,
      });
    },
    async rewind(request) {
      const { rewindClaudeCode } = await import("./rewind.ts");
      return rewindClaudeCode(request, {
        executable: options.executable,
        runnerEnv: runnerEnv(),
        extraEnv: options.extraEnv,
        settingSources,
        timeoutMs: options.rewindTimeoutMs ?? 60_000,
      });
    },
  };
}
