import fs from "node:fs/promises";
import path from "node:path";

/** Directories never searched: version control data and installed dependencies. */
export const IGNORED_DIRS: ReadonlySet<string> = new Set([".git", ".hg", ".svn", "node_modules"]);

/** Every regular file under `root`, depth first in name order, skipping IGNORED_DIRS and symbolic
 * links. Unreadable directories are skipped. Stops when `signal` fires. */
export async function* walkFiles(root: string, signal: AbortSignal): AsyncGenerator<string> {
  const stack: string[] = [root];
  while (stack.length > 0) {
    if (signal.aborted) return;
    const dir = stack.pop()!;
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: string[] = [];
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!IGNORED_DIRS.has(entry.name)) subdirs.push(path.join(dir, entry.name));
      } else if (entry.isFile()) {
        yield path.join(dir, entry.name);
      }
    }
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]);
  }
}
