// A walk of a folder of a session's workspace, for the list, search and batch download: each folder
// is opened (never through a link at its end), checked to be in the workspace, and read through its
// open descriptor (inDirectory), so a run that swaps a folder for a link out of it meanwhile leads
// the walk nowhere. Links are given as what they lead to when that is inside (looked at through the
// file opened there, checked to be inside), never entered (they could lead round and round); others
// are left out, as are sockets.
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { isWithin, realPathOf } from "@harness/agent/real-paths";
import { inDirectory } from "./workspace-at.ts";
import { checkOpened } from "./workspace-paths.ts";

/** An entry met: its workspace path, where it really is (a link's target), what it is (a file or a
 * folder), and `open()`, which opens it for reading (while `visit` is given it: its folder is open
 * meanwhile), undefined when it is no longer the entry met (gone, swapped) or cannot be read. */
export type Walked = { path: string; real: string; stats: Stats; open: () => Promise<FileHandle | undefined> };

export type WalkOptions = {
  /** Whether the folder `name` (at `path`) is passed by, not entered (it is still given). */
  skip?: (name: string, path: string) => boolean;
  /** Whether to stop: asked before each entry. */
  stop?: () => boolean;
  /** Told the workspace paths of a folder's entries (sorted) before they are met, links out too. */
  met?: (paths: string[]) => void | Promise<void>;
};

/** Opened for reading, never through a link at its end, without waiting on a pipe. */
const READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

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
        const own = await lstat(at(name)).catch(() => undefined);
        if (!own) continue;
        const link = own.isSymbolicLink();
        const target = link ? realPathOf(full) : full;
        if (link && !isWithin(target, realRoot)) continue;
        // What a link leads to, as the file there is: checked to be inside, whatever the path to it
        // has become since it was resolved.
        const inside = (fd: number) => checkOpened(fd, root, path);
        const stats = link ? await statOpened(target, inside) : own;
        if (!stats || !(stats.isFile() || stats.isDirectory())) continue;
        const opened = () => openSame(link ? target : at(name), stats, inside);
        await visit({ path, real: target, stats, open: opened });
        if (stats.isDirectory() && !link && !options.skip?.(name, path)) pending.push({ dir: full, under: path });
      }
    }).catch((error) => {
      if (entered) throw error;
    });
  }
}

/** What is at `path` (not a link at its end), as the file opened there once `check` has taken it;
 * undefined when nothing is, or it cannot be opened (a socket), or `check` refuses it. */
async function statOpened(path: string, check: (fd: number) => Promise<void>): Promise<Stats | undefined> {
  const handle = await open(path, READ).catch(() => undefined);
  if (!handle) return undefined;
  try {
    await check(handle.fd);
    return await handle.stat();
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** The file at `path` opened for reading, when `check` takes it and it is the one `met` tells of
 * (the same file of the same device); undefined when it is not (or cannot be opened). */
async function openSame(path: string, met: Stats, check: (fd: number) => Promise<void>): Promise<FileHandle | undefined> {
  const handle = await open(path, READ).catch(() => undefined);
  if (!handle) return undefined;
  try {
    await check(handle.fd);
    const stats = await handle.stat();
    if (stats.ino === met.ino && stats.dev === met.dev) return handle;
  } catch {
    // Refused: closed below.
  }
  await handle.close();
  return undefined;
}
