// Which paths a checkpoint's own .gitignore files ignore. A rewind removes the files its snapshot
// lacks; but a file it lacks because it was ignored then (a .env) is the user's, and stays, even when
// a run has since changed the .gitignore so that the file is no longer ignored (and the snapshots
// taken since hold it). The rules are read as git reads them: the checkpoint's .gitignore files are
// written to a scratch directory, and `git check-ignore --no-index` asks them about each path (which
// need not exist there). The shadow repository's own excludes apply too.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Git, GitRepo } from "./git.ts";

type Result<T> = { ok: true; value: T } | { ok: false; message: string };

/** Paths per git process: well within the length of a command line. */
const CHUNK = 500;

export async function ignoredInTree(git: Git, repo: GitRepo, tree: string, paths: readonly string[]): Promise<Result<Set<string>>> {
  const ignored = new Set<string>();
  if (paths.length === 0) return { ok: true, value: ignored };
  const listed = await git.run(["ls-tree", "-r", "-z", "--name-only", tree], { repo });
  if (!listed.ok) return listed;
  const rules = listed.stdout.split("\0").filter((path) => path === ".gitignore" || path.endsWith("/.gitignore"));
  const scratchDir = await mkdtemp(join(repo.gitDir, "ignore-rules-"));
  const scratch: GitRepo = { gitDir: repo.gitDir, workTree: join(scratchDir, "tree"), index: join(scratchDir, "index") };
  try {
    await mkdir(scratch.workTree);
    if (rules.length > 0) {
      const read = await git.run(["read-tree", tree], { repo: scratch });
      if (!read.ok) return read;
      for (const chunk of chunks(rules)) {
        const written = await git.run(["checkout-index", "--force", "--", ...chunk], { repo: scratch });
        if (!written.ok) return written;
      }
    }
    for (const chunk of chunks(paths)) {
      // -v -n: one line per path, in order, whether a pattern matched or not.
      const checked = await git.run(["check-ignore", "--no-index", "--verbose", "--non-matching", "--", ...chunk], { repo: scratch });
      if (!checked.ok && checked.code === 1) continue; // none of them is ignored
      if (!checked.ok) return checked;
      const lines = checked.stdout.split("\n");
      chunk.forEach((path, i) => {
        if (ignoredLine(lines[i] ?? "")) ignored.add(path);
      });
    }
    return { ok: true, value: ignored };
  } finally {
    await rm(scratchDir, { recursive: true, force: true });
  }
}

/** Whether a line of `check-ignore -v -n` ("<source>:<line>:<pattern>\t<path>", "::\t<path>" when no
 * pattern matched) says the path is ignored: a matching "!pattern" says it is not. */
function ignoredLine(line: string): boolean {
  const head = line.slice(0, line.lastIndexOf("\t"));
  const match = /:\d+:(.*)$/s.exec(head);
  return match !== null && !match[1].startsWith("!");
}

function* chunks<T>(items: readonly T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}
