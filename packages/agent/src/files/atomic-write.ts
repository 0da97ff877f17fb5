// Replacing a file that people keep: their configuration and settings files. Written beside and
// renamed over, so that a reader never sees half a file, while the file stays what it was to its
// owner: a symbolic link (a dotfiles repository's) stays a link, the mode and owner are kept.
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";

/** Writes `text` to `file` through a temporary file beside it (its link's target, for a symbolic
 * link), renamed over it. An existing file keeps its mode and its owner and group; a new one gets
 * `newMode` (default 0o644, less the umask). Throws an Error naming what failed, the old file left
 * as it was; the directory must exist. */
export function writeFileAtomically(file: string, text: string, options: { newMode?: number } = {}): void {
  const target = realTarget(file);
  const old = statIfAny(target);
  const mode = old ? old.mode & 0o7777 : options.newMode;
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    writeFileSync(temp, text, { flag: "wx", mode: mode ?? 0o644, flush: true });
    // The new file is the old one's owner's, as a file written in place stays: root editing a
    // user's file must not leave it unreadable to that user. Who cannot give it away is refused.
    if (old && (old.uid !== process.getuid?.() || old.gid !== process.getgid?.())) {
      try {
        chownSync(temp, old.uid, old.gid);
      } catch (error) {
        throw new Error(`it belongs to another user or group, which the new file could not be given (${(error as Error).message}); it was left as it is`);
      }
    }
    if (mode !== undefined) chmodSync(temp, mode);
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}

/** The file a write to `file` replaces: the end of its chain of links, or `file` when there is none
 * yet (a link whose target is missing is replaced by the new file). */
function realTarget(file: string): string {
  try {
    return realpathSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return file;
    throw error;
  }
}

function statIfAny(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
