// The permission bits a restore keeps. git records of a file's mode only whether it is executable,
// and writes each file it restores anew with the default mode: a file only its owner could read (a
// key, a credentials file) would come back readable by everyone. A file the restore overwrites keeps
// the permission bits it had; whether it is executable is the checkpoint's (for those who may read it).
import { chmod, lstat } from "node:fs/promises";
import { join } from "node:path";

/** The permission bits of those of `paths` that are regular files now. */
export async function modesOf(workspace: string, paths: readonly string[]): Promise<Map<string, number>> {
  const modes = new Map<string, number>();
  for (const path of paths) {
    const stat = await lstat(join(workspace, path)).catch(() => undefined);
    if (stat?.isFile()) modes.set(path, stat.mode & 0o777);
  }
  return modes;
}

/** Gives each file of `modes` that is still a regular file its permission bits back. */
export async function keepModes(workspace: string, modes: ReadonlyMap<string, number>): Promise<void> {
  for (const [path, before] of modes) {
    const file = join(workspace, path);
    const stat = await lstat(file).catch(() => undefined);
    if (!stat?.isFile()) continue;
    const executable = (stat.mode & 0o111) !== 0;
    const wanted = (before & 0o666) | (executable ? (before & 0o444) >> 2 : 0);
    if ((stat.mode & 0o777) !== wanted) await chmod(file, wanted).catch(() => undefined);
  }
}
