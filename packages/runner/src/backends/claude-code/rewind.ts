// Rewinding the workspace with Claude Code's own file checkpoints: Claude Code backs up each file
// before its Write, Edit and NotebookEdit tools change it (changes made through Bash are not
// tracked). Between runs no Claude Code is running, so one is started on the session to do it.
// The conversation is cut too: the next run that resumes it forks it before the rewound turn.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { isAbsolute, relative } from "node:path";
import { query as startQuery, type RewindFilesResult, type SettingSource } from "@anthropic-ai/claude-agent-sdk";
import { secretHiding } from "@harness/llm/hidden-secrets";
import type { FileChange, RewindResult } from "@harness/protocol";
import { createInputQueue } from "./input.ts";
import { claudeCodeDirs, claudeCodeEnv, findClaudeCodeExecutable } from "./options.ts";
import { NOT_INSTALLED_MESSAGE } from "./run.ts";
import { claudeCodeSecrets } from "./secrets.ts";
import { findCheckpoint, readStore, recordCut } from "./store.ts";

export type RewindRequest = { userMessageId: string; dryRun: boolean; workspace: string; stateDir: string };
export type RewindDeps = {
  executable?: string;
  runnerEnv: Record<string, string | undefined>;
  extraEnv?: Record<string, string>;
  /** The runs' settings sources: a rewind reads none, but its errors (Claude Code's stderr) hide
   * the secrets the runs know, as their notices do. */
  settingSources: readonly SettingSource[];
  timeoutMs: number;
};

/** The files the rewind changes (dry run: would change), or undefined when the message has no
 * checkpoint. A dry run comes from Claude Code's own dry run; which files are deleted rather than
 * restored comes from the files this backend saw Write create since the checkpoint, and the line
 * counts are given when only one file changes (Claude Code reports totals). */
export async function rewindClaudeCode(request: RewindRequest, deps: RewindDeps): Promise<RewindResult | undefined> {
  const data = await readStore(request.stateDir);
  const found = findCheckpoint(data, request.userMessageId);
  if (!found) return undefined;
  const executable = deps.executable ?? findClaudeCodeExecutable();
  if (!executable) throw new Error(NOT_INSTALLED_MESSAGE);
  const { checkpoint, createdSince, cutAt } = found;
  const dirs = claudeCodeDirs(request.stateDir);
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  // No model call is made, so no key: without one Claude Code also skips its account checks.
  const env = claudeCodeEnv({ stateDir: request.stateDir, runnerEnv: deps.runnerEnv, extra: deps.extraEnv });
  const secrets = { env, runnerEnv: deps.runnerEnv, settingSources: deps.settingSources, configDir: dirs.configDir, home: dirs.home, cwd: checkpoint.cwd };
  const { hide } = secretHiding(await claudeCodeSecrets(secrets));

  const input = createInputQueue();
  const abortController = new AbortController();
  const timer = setTimeout(() => abortController.abort(), deps.timeoutMs);
  const q = startQuery({
    prompt: input.messages,
    options: {
      cwd: checkpoint.cwd,
      resume: checkpoint.sessionId,
      enableFileCheckpointing: true,
      settingSources: [],
      pathToClaudeCodeExecutable: executable,
      abortController,
      env,
    },
  });
  try {
    const preview = await q.rewindFiles(checkpoint.checkpointUuid, { dryRun: true });
    if (!preview.canRewind) return unavailable(preview);
    const paths = preview.filesChanged ?? [];
    if (!request.dryRun && paths.length > 0) {
      const done = await q.rewindFiles(checkpoint.checkpointUuid);
      if (!done.canRewind) throw new Error(`Claude Code could not rewind the files: ${done.error ?? "no reason given"}`);
    }
    if (!request.dryRun) {
      // Every Claude Code session this conversation went through since then is cut the same way.
      const from = data.checkpoints.findIndex((c) => c === checkpoint);
      await recordCut(request.stateDir, new Set(data.checkpoints.slice(from).map((c) => c.sessionId)), cutAt);
    }
    const files = paths.map((path): FileChange => {
      const gone = request.dryRun ? createdSince.has(path) : !existsSync(path);
      const change: FileChange = { path: shown(path, request.workspace), action: gone ? "delete" : "restore" };
      if (paths.length === 1) {
        change.linesAdded = preview.insertions ?? 0;
        change.linesRemoved = preview.deletions ?? 0;
      }
      return change;
    });
    return { dryRun: request.dryRun, files };
  } catch (err) {
    if (abortController.signal.aborted) throw new Error(`Claude Code did not finish the rewind within ${deps.timeoutMs} ms`);
    // Claude Code's words (its stderr, which the SDK's error quotes) may hold the run's secrets.
    throw err instanceof Error ? new Error(hide(err.message), { cause: err }) : err;
  } finally {
    clearTimeout(timer);
    input.end();
    q.close();
  }
}

function unavailable(result: RewindFilesResult): undefined {
  // Claude Code keeps no checkpoint for it (its transcript is gone): as if none had been filed.
  if (!result.error || /no (file )?checkpoint/i.test(result.error)) return undefined;
  throw new Error(`Claude Code cannot rewind to that message: ${result.error}`);
}

/** Paths inside the workspace relative to it, others as they are. */
function shown(path: string, workspace: string): string {
  const rel = relative(workspace, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
