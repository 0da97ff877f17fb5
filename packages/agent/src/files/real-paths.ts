// Where paths are, and where they really lead: shared by the permission checks, the memory loader
// and command discovery. Synchronous on purpose, as the reads of config/files.ts: a run would
// otherwise wait on the thread pool for each path.
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import path from "node:path";

/** Whether `target` is `dir` or below it (both absolute). */
export function isWithin(target: string, dir: string): boolean {
  const relative = path.relative(dir, target);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** `target` with the symbolic links in it resolved, as far as it exists (the missing rest is kept
 * as written); `target` itself when it cannot be resolved (a loop: an access fails anyway). A
 * dangling link is followed to where it points: writing through it creates the file there. */
export function realPathOf(target: string, hops = 0): string {
  const rest: string[] = [];
  let existing = target;
  for (;;) {
    try {
      const real = realpathSync.native(existing);
      return rest.length === 0 ? real : path.join(real, ...rest.toReversed());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = path.dirname(existing);
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === existing) return target;
      const link = danglingLink(existing);
      if (link !== undefined) {
        if (hops >= MAX_LINK_HOPS) return target;
        return realPathOf(path.join(path.resolve(parent, link), ...rest.toReversed()), hops + 1);
      }
      rest.push(path.basename(existing));
      existing = parent;
    }
  }
}

const MAX_LINK_HOPS = 40;

/** Where `file` points when it is a symbolic link (one whose target is missing, here). */
function danglingLink(file: string): string | undefined {
  try {
    return lstatSync(file).isSymbolicLink() ? readlinkSync(file) : undefined;
  } catch {
    return undefined;
  }
}
