// Which files of the workspace changed between two of its snapshots: those created or changed (a
// file deleted since is none), for a run's report of the files it made (its artifacts).
import type { Git, GitRepo } from "./git.ts";
import type { Result } from "./checkpoints.ts";

export type ChangedPaths = { paths: string[]; truncated: boolean };

/** The paths (workspace-relative, "/" between names) that `to` holds with other content than `from`
 * or that `from` lacks, in git's order, at most `max`; `truncated` when there were more. */
export async function changedBetween(git: Git, repo: GitRepo, from: string, to: string, max: number): Promise<Result<ChangedPaths>> {
  if (from === to) return { ok: true, value: { paths: [], truncated: false } };
  // A (added), M (modified), T (type changed: a link become a file…); never D (deleted).
  const diff = await git.run(["diff-tree", "-r", "--no-renames", "--no-ext-diff", "--name-only", "--diff-filter=AMT", "-z", from, to], { repo });
  if (!diff.ok) return diff;
  return { ok: true, value: capped(diff.stdout.split("\0").filter((path) => path !== ""), max) };
}

function capped(paths: string[], max: number): ChangedPaths {
  return paths.length > max ? { paths: paths.slice(0, max), truncated: true } : { paths, truncated: false };
}
