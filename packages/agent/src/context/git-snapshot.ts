// The git state of the working directory, taken once at the start of a run for the environment block.
import { execFile } from "node:child_process";

export const GIT_STATUS_MAX_LINES = 40;
export const GIT_RECENT_COMMITS = 5;
export const DEFAULT_GIT_TIMEOUT_MS = 5_000;

export type GitSnapshot =
  | { isRepo: false; /** Why git gave no answer, when it was not simply "not a repository". */ error?: string }
  | {
      isRepo: true;
      /** The checked-out branch, or "HEAD detached at <sha>". */
      branch: string;
      /** origin's default branch, else a local main or master; undefined when none is known. */
      mainBranch?: string;
      /** `git status --short`, at most GIT_STATUS_MAX_LINES lines (a note says how many were cut);
       * "(clean)" when nothing changed. */
      status: string;
      /** `git log --oneline` of the last GIT_RECENT_COMMITS commits; "(no commits yet)" in a new repository. */
      recentCommits: string;
    };

type GitResult = { ok: true; stdout: string } | { ok: false; error: string; missingGit: boolean };

/** Never rejects. No git installed, not a repository, a hung git (killed after `timeoutMs`) or an
 * aborted signal all come back as `{ isRepo: false }`. Runs git without optional locks so that it
 * never competes with the user's own git commands for the index lock. */
export async function gitSnapshot(cwd: string, signal: AbortSignal, options: { timeoutMs?: number } = {}): Promise<GitSnapshot> {
  const git = (...args: string[]) => runGit(cwd, args, signal, options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS);
  const inside = await git("rev-parse", "--is-inside-work-tree");
  if (!inside.ok) return inside.missingGit || signal.aborted ? { isRepo: false, error: inside.error } : { isRepo: false };
  if (inside.stdout.trim() !== "true") return { isRepo: false };

  const [branch, head, status, log, originHead, main, master] = await Promise.all([
    git("branch", "--show-current"),
    git("rev-parse", "--short", "HEAD"),
    git("-c", "color.status=false", "status", "--short", "--ignore-submodules=all"),
    git("log", "--oneline", "--no-color", "-n", String(GIT_RECENT_COMMITS)),
    git("symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"),
    git("rev-parse", "--verify", "--quiet", "refs/heads/main"),
    git("rev-parse", "--verify", "--quiet", "refs/heads/master"),
  ]);
  const snapshot: GitSnapshot = {
    isRepo: true,
    branch: currentBranch(branch, head),
    status: status.ok ? capLines(status.stdout) : `(git status failed: ${status.error})`,
    recentCommits: log.ok && log.stdout.trim() ? log.stdout.trimEnd() : "(no commits yet)",
  };
  const mainBranch = originHead.ok && originHead.stdout.trim() ? originHead.stdout.trim().replace(/^refs\/remotes\/origin\//, "") : main.ok ? "main" : master.ok ? "master" : undefined;
  if (mainBranch) snapshot.mainBranch = mainBranch;
  return snapshot;
}

function currentBranch(branch: GitResult, head: GitResult): string {
  const name = branch.ok ? branch.stdout.trim() : "";
  if (name) return name;
  return head.ok && head.stdout.trim() ? `HEAD detached at ${head.stdout.trim()}` : "(unknown)";
}

function capLines(stdout: string): string {
  const lines = stdout.split("\n").filter((line) => line.length > 0);
  if (lines.length === 0) return "(clean)";
  if (lines.length <= GIT_STATUS_MAX_LINES) return lines.join("\n");
  const cut = lines.length - GIT_STATUS_MAX_LINES;
  return `${lines.slice(0, GIT_STATUS_MAX_LINES).join("\n")}\n... (${cut} more line${cut === 1 ? "" : "s"} not shown; run "git status" with Bash for the full list)`;
}

/** Settings of the repository's config that would have git run a program of the repository's
 * choosing (a file-system monitor, hooks, a signature checker): turned off, since whatever wrote
 * the workspace (a command the sandbox let run unasked, a cloned project) may have set them. For
 * the same reason `status` does not look into nested repositories. */
const NO_PROGRAMS = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "log.showSignature=false", "-c", "diff.external="];

function runGit(cwd: string, args: string[], signal: AbortSignal, timeout: number): Promise<GitResult> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["--no-optional-locks", ...NO_PROGRAMS, ...args],
      {
        cwd,
        signal,
        timeout,
        maxBuffer: 1024 * 1024,
        windowsHide: true,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" },
      },
      (error, stdout) => {
        if (!error) return resolve({ ok: true, stdout });
        const code = (error as NodeJS.ErrnoException).code;
        resolve({ ok: false, error: error.message.split("\n")[0] ?? String(error), missingGit: code === "ENOENT" });
      },
    );
  });
}
