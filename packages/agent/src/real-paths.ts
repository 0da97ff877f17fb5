// Where paths are, and where they really lead: shared by the permission checks, the memory loader
// and command discovery. Synchronous on purpose, as the reads of config-files.ts: a run would
// otherwise wait on the thread pool for each path.
import { realpathSync } from "node:fs";
import path from "node:path";

/** Whether `target` is `dir` or below it (both absolute). */
export function isWithin(target: string, dir: string): boolean {
  const relative = path.relative(dir, target);
  return relative === "" || (relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** `target` with the symbolic links in it resolved, as far as it exists (the missing rest is kept
 * as written); `target` itself when it cannot be resolved (a loop: an access fails anyway). */
export function realPathOf(target: string): string {
  const rest: string[] = [];
  let existing = target;
  for (;;) {
    try {
      const real = realpathSync.native(existing);
      return rest.length === 0 ? real : path.join(real, ...rest.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const parent = path.dirname(existing);
      if ((code !== "ENOENT" && code !== "ENOTDIR") || parent === existing) return target;
      rest.push(path.basename(existing));
      existing = parent;
    }
  }
}
