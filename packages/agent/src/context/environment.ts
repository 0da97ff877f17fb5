// The environment block of the system prompt: where the agent runs, on what, with which model, and
// the git state at the start of the run.
import os from "node:os";
import type { GitSnapshot } from "./git-snapshot.ts";

export type EnvironmentOptions = {
  cwd: string;
  model: string;
  /** Default: os.platform(). */
  platform?: string;
  /** Default: `${os.type()} ${os.release()}`. */
  osVersion?: string;
  /** Default: now. Shown as the local calendar date, YYYY-MM-DD. */
  date?: Date;
  /** From gitSnapshot(); without it the block does not say whether cwd is a repository. */
  git?: GitSnapshot;
  /** Directories besides cwd the file tools reach (--add-dir, permissions.additionalDirectories),
   * named as Claude Code names them. */
  additionalDirectories?: readonly string[];
};

/** Deterministic for equal options, so the cached prompt prefix survives from run to run as long as
 * the date and the git state stay the same. */
export function environmentBlock(options: EnvironmentOptions): string {
  const lines = [
    "Here is useful information about the environment you are running in:",
    "<env>",
    `Working directory: ${options.cwd}`,
    ...(options.git ? [`Is directory a git repo: ${options.git.isRepo ? "Yes" : "No"}`] : []),
    ...(options.additionalDirectories?.length ? [`Additional working directories: ${options.additionalDirectories.join(", ")}`] : []),
    `Platform: ${options.platform ?? os.platform()}`,
    `OS Version: ${options.osVersion ?? `${os.type()} ${os.release()}`}`,
    `Today's date: ${localDate(options.date ?? new Date())}`,
    "</env>",
    `You are powered by the model ${options.model}.`,
  ];
  const git = options.git;
  if (git?.isRepo) {
    lines.push(
      "",
      "gitStatus: This is the git status at the start of the conversation. It is a snapshot and does not update during the conversation.",
      `Current branch: ${git.branch}`,
      "",
      ...(git.mainBranch ? [`Main branch (you will usually use this for PRs): ${git.mainBranch}`, ""] : []),
      "Status:",
      git.status,
      "",
      "Recent commits:",
      git.recentCommits,
    );
  }
  return lines.join("\n");
}

export function localDate(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}
