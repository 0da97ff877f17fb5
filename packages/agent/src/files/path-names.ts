// The names of a folder offered to whoever completes a path in it: `@path` completion
// (path-matches.ts), for the chat and for the server's listing of a session's files. Hidden names
// come only when what is typed starts with a dot; node_modules and .git only when named in full.
// Every read is bounded and asynchronous.
import type { Dirent } from "node:fs";
import { opendir, stat } from "node:fs/promises";
import { join } from "node:path";

/** The folder a path names is read up to this many entries (a fraction of a second): only those
 * starting with what is typed are kept, so that a name in a huge folder is found all the same. */
export const FOLDER_LIMIT = 200_000;
/** Names left out unless named in full: they hold more than anyone means to mention. */
export const BULKY: ReadonlySet<string> = new Set(["node_modules", ".git"]);

/** Whether `name` is offered for `base`, the start of a name typed. */
export function shown(name: string, base: string): boolean {
  if (BULKY.has(name)) return base === name;
  if (name.startsWith(".") && !base.startsWith(".")) return false;
  // A mention ends at whitespace other than an escaped space, or at a backslash; "#" starts a
  // fragment: a name with any of them cannot be mentioned. One with control characters, which the
  // line editor would write to the terminal as they are (escape sequences), is not offered either.
  return !/[\\#\x00-\x1f\x7f-\x9f]/.test(name);
}

/** The entries of `dir` that `keep` (all by default) among the first `limit` read (until `signal`
 * aborts), sorted by name; none when it cannot be read. */
export async function namesIn(dir: string, limit: number, keep = (_name: string) => true, signal?: AbortSignal): Promise<Dirent[]> {
  const entries: Dirent[] = [];
  let read = 0;
  try {
    for await (const entry of await opendir(dir, { bufferSize: 256 })) {
      if (keep(entry.name)) entries.push(entry);
      if (++read >= limit || signal?.aborted) break;
    }
  } catch {
    // Not there, not a folder, not readable: nothing to offer.
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The entries of `dir` offered for `base` (the start of a name typed), sorted by name. */
export function offeredIn(dir: string, base: string, signal?: AbortSignal): Promise<Dirent[]> {
  return namesIn(dir, FOLDER_LIMIT, (name) => name.startsWith(base) && shown(name, base), signal);
}

/** A folder, or a link to one. */
export async function isFolder(entry: Dirent, dir: string): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  return stat(join(dir, entry.name)).then((s) => s.isDirectory(), () => false);
}
