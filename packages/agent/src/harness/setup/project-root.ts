import { configPathExists } from "../../config/files.ts";
import path from "node:path";

export type ProjectRoot = {
  /** The nearest directory from cwd upwards that holds `.git`, else cwd. */
  root: string;
  /** Whether a `.git` was found: without one, git is not asked about the working directory. */
  inGitRepo: boolean;
};

/** Looks for `.git` (a directory, or the file of a worktree or submodule) from `cwd` up to the
 * filesystem root. Plain stat calls: no git process is started. */
export async function findProjectRoot(cwd: string): Promise<ProjectRoot> {
  const start = path.resolve(cwd);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (configPathExists(path.join(dir, ".git"))) return { root: dir, inGitRepo: true };
    if (path.dirname(dir) === dir) return { root: start, inGitRepo: false };
  }
}


/** The project a run in `cwd` belongs to: `cwd` itself when it has a `.claude` directory of its
 * own below the repository's root, else `gitRoot` (findProjectRoot's). Its `.mcp.json`, its
 * `.claude` settings and its entry in ~/.claude.json are the ones read. */
export function ownProjectRoot(cwd: string, gitRoot: string): string {
  return cwd !== gitRoot && configPathExists(path.join(cwd, ".claude")) ? cwd : gitRoot;
}
