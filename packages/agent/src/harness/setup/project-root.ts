import { configPathExists } from "../../config/files.ts";
import path from "node:path";
import { ceilingDirectories, parentBelowCeilings } from "../../files/ceilings.ts";

export type ProjectRoot = {
  /** The nearest directory from cwd upwards that holds `.git`, else cwd. */
  root: string;
  /** Whether a `.git` was found: without one, git is not asked about the working directory. */
  inGitRepo: boolean;
};

/** Looks for `.git` (a directory, or the file of a worktree or submodule) from `cwd` up to the
 * filesystem root, or to a ceiling directory (ceilingDirectories). Plain stat calls: no git
 * process is started. */
export async function findProjectRoot(cwd: string, ceilings = ceilingDirectories()): Promise<ProjectRoot> {
  const start = path.resolve(cwd);
  for (let dir: string | undefined = start; dir !== undefined; dir = parentBelowCeilings(dir, ceilings)) {
    if (configPathExists(path.join(dir, ".git"))) return { root: dir, inGitRepo: true };
  }
  return { root: start, inGitRepo: false };
}


/** The project a run in `cwd` belongs to: `cwd` itself when it has a `.claude` directory of its
 * own below the repository's root, else `gitRoot` (findProjectRoot's). Its `.mcp.json`, its
 * `.claude` settings and its entry in ~/.claude.json are the ones read. */
export function ownProjectRoot(cwd: string, gitRoot: string): string {
  return cwd !== gitRoot && configPathExists(path.join(cwd, ".claude")) ? cwd : gitRoot;
}
