// A walk of a folder of a session's workspace, for search and batch download: each folder is opened
// (never through a link at its end), checked to be in the workspace, and read through its open
// descriptor (inDirectory), so a run that swaps a folder for a link out of it meanwhile leads the
// walk nowhere. Links are given as what they lead to when that is inside, never entered (they could
// lead round and round); others are left out, as the list leaves them out.
import type { Stats } from "node:fs";
import { lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { isWithin, realPathOf } from "@harness/agent/real-paths";
import { inDirectory } from "./workspace-at.ts";
import { checkOpened } from "./workspace-paths.ts";

/** An entry met: its workspace path, where it really is, and what it is (a file or a folder). */
export type Walked = { path: string; real: string; stats: Stats };

export type WalkOptions = {
  /** Whether the folder `name` (at `path`) is passed by, not entered (it is still given). */
  skip?: (name: string, path: string) => boolean;
  /** Whether to stop: asked before each entry. */
  stop?: () => boolean;
  /** Told the workspace paths of a folder's entries (sorted) before they are met, links out too. */
  met?: (paths: string[]) => void | Promise<void>;
};

/** The entries below the folder `real` (its workspace path `relative`, checked by confined()), each
 * given to `visit` as it is met, folders before what they hold. */
export async function walk(root: string, real: string, relative: string, visit: (entry: Walked) => Promise<void>, options: WalkOptions = {}): Promise<void> {
  const realRoot = realPathOf(root);
  const pending = [{ dir: real, under: relative }];
  while (pending.length > 0 && !options.stop?.()) {
    const { dir, under } = pending.shift()!;
    const check = (fd: number) => checkOpened(fd, root, under);
    // A folder gone, or swapped for a link (ELOOP, ENOTDIR) or one out of the workspace since it
    // was met: passed by.
    let entered = false;
    await inDirectory(dir, check, async (at) => {
      entered = true;
      const names = (await readdir(at(".")).catch(() => [])).sort();
      await options.met?.(names.map((name) => (under === "" ? name : `${under}/${name}`)));
      for (const name of names) {
        if (options.stop?.()) return;
        const path = under === "" ? name : `${under}/${name}`;
        const full = join(dir, name);
        const own = await statOf(at(name), true);
        if (!own) continue;
        const link = own.isSymbolicLink();
        const target = link ? realPathOf(full) : full;
        if (link && !isWithin(target, realRoot)) continue;
        const stats = link ? await statOf(target, false) : own;
        if (!stats || !(stats.isFile() || stats.isDirectory())) continue;
        await visit({ path, real: target, stats });
        if (stats.isDirectory() && !link && !options.skip?.(name, path)) pending.push({ dir: full, under: path });
      }
    }).catch((error) => {
      if (entered) throw error;
    });
  }
}

/** What is at `path` (the link itself with `own`); undefined when nothing is (any more). */
async function statOf(path: string, own: boolean): Promise<Stats | undefined> {
  return (own ? lstat(path) : stat(path)).catch(() => undefined);
}
