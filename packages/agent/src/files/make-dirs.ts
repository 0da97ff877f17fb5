// `mkdir -p` that ends. Node's recursive mkdir never returns for a missing path under /proc (the
// kernel answers ENOENT however often the parent is made, and Node tries again forever), which
// would hang a Write tool call, a runner's workspace or the server's start. These make each missing
// directory once, from the top down, and give up with the error of the second attempt.
import { mkdirSync, statSync } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";

type ErrnoError = NodeJS.ErrnoException;

/** Creates `dir` and its missing parents (with `mode`); a directory that exists is fine. */
export async function makeDirs(dir: string, mode?: number): Promise<void> {
  try {
    await mkdir(dir, { mode });
    return;
  } catch (error) {
    if ((error as ErrnoError).code === "EEXIST" && (await stat(dir).catch(() => undefined))?.isDirectory()) return;
    if ((error as ErrnoError).code !== "ENOENT" || dirname(dir) === dir) throw error;
  }
  await makeDirs(dirname(dir), mode);
  await mkdir(dir, { mode }).catch(async (error: ErrnoError) => {
    // Made meanwhile by someone else.
    if (error.code !== "EEXIST" || !(await stat(dir)).isDirectory()) throw error;
  });
}

/** makeDirs, synchronously. */
export function makeDirsSync(dir: string, mode?: number): void {
  try {
    mkdirSync(dir, { mode });
    return;
  } catch (error) {
    if ((error as ErrnoError).code === "EEXIST" && isDirectory(dir)) return;
    if ((error as ErrnoError).code !== "ENOENT" || dirname(dir) === dir) throw error;
  }
  makeDirsSync(dirname(dir), mode);
  try {
    mkdirSync(dir, { mode });
  } catch (error) {
    if ((error as ErrnoError).code !== "EEXIST" || !isDirectory(dir)) throw error;
  }
}

/** Whether `path` is a directory (false when it is not there or cannot be looked at). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
