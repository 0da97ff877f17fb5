// Deleting and making directories in a session's workspace, every step taken from a directory that
// is open and known to be in it: a name is made or removed through /proc/self/fd/<fd>/<name> (as
// mkdirat and unlinkat would), never by a path walked again, so a run that swaps a directory for a
// link meanwhile leads them nowhere. Where /proc cannot say (not Linux), by paths.
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, rmdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { placeOf } from "./workspace-paths.ts";

/** A name in an open directory, as a path that leads to it there and nowhere else. */
export type At = (name: string) => string;

const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** `use` given the directory at `path` (opened, never through a link at its end), once `check`
 * has taken it. */
export async function inDirectory<T>(path: string, check: (fd: number) => Promise<void>, use: (at: At) => Promise<T>): Promise<T> {
  const handle = await open(path, DIRECTORY);
  try {
    await check(handle.fd);
    const pinned = (await placeOf(handle.fd)) !== undefined;
    return await use((name) => (pinned ? `/proc/self/fd/${handle.fd}/${name}` : join(path, name)));
  } finally {
    await handle.close();
  }
}

/** Removes `name` from the directory of `at`: a file or a link (never what it leads to), or a
 * directory with all it holds. */
export async function removeAll(at: At, name: string): Promise<void> {
  const entry = await lstat(at(name));
  if (!entry.isDirectory()) return unlink(at(name));
  await inDirectory(at(name), async () => {}, async (inner) => {
    for (const child of await readdir(inner("."))) await removeAll(inner, child);
  });
  await rmdir(at(name));
}

/** Makes the directories `parts` below the directory `top` (once `check` has taken it), each made
 * or found in the one above it, which is open, and entered without following a link; then `use`
 * given the last (`top` without parts), still open. */
export async function makeDirsBelow<T>(top: string, parts: readonly string[], check: (fd: number) => Promise<void>, use: (at: At) => Promise<T>): Promise<T> {
  let handle = await open(top, DIRECTORY);
  try {
    await check(handle.fd);
    const pinned = (await placeOf(handle.fd)) !== undefined;
    let path = top;
    for (const part of parts) {
      const at = pinned ? `/proc/self/fd/${handle.fd}/${part}` : join(path, part);
      await mkdir(at).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
      const next = await open(at, DIRECTORY).catch(async (error: NodeJS.ErrnoException) => {
        // A link there (round in a loop, or put there since the path was resolved) is said to be
        // one, not a file.
        if (error.code === "ENOTDIR" && (await lstat(at).catch(() => undefined))?.isSymbolicLink()) throw Object.assign(new Error(`${at} is a symbolic link`), { code: "ELOOP" });
        throw error;
      });
      await handle.close();
      handle = next;
      path = join(path, part);
    }
    const { fd } = handle;
    const last = path;
    return await use((name) => (pinned ? `/proc/self/fd/${fd}/${name}` : join(last, name)));
  } finally {
    await handle.close();
  }
}
