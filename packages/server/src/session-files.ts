// The files of a session's workspace for completion (GET /sessions/:id/files): the entries whose
// path starts with what is typed, as the chat's own `@path` completion offers them
// (@harness/agent/path-names), never one that leads out of the workspace.
import { realpath } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { isFolder, offeredIn } from "@harness/agent/path-names";
import { isWithin } from "@harness/agent/real-paths";

/** At most this many paths are answered. */
export const FILES_LIMIT = 200;
/** At most this many links are resolved for one answer. */
const LINKS_LIMIT = 2 * FILES_LIMIT;
/** The longest prefix taken (PATH_MAX on Linux), in bytes. */
export const PREFIX_MAX_BYTES = 4_096;

/** A path relative to the workspace, as typed: it cannot name anything outside it by its words. */
export const PrefixSchema = z
  .string()
  .refine((prefix) => Buffer.byteLength(prefix) <= PREFIX_MAX_BYTES, `must be at most ${PREFIX_MAX_BYTES} bytes`)
  .refine((prefix) => !prefix.includes("\0"), "must not contain NUL")
  .refine((prefix) => !prefix.startsWith("/"), "must be relative to the session's workspace, not absolute")
  .refine((prefix) => !prefix.split("/").includes(".."), 'must not contain ".." segments');

/** The paths below `root` that start with `prefix` (checked by PrefixSchema), folders ending in
 * "/", sorted, at most FILES_LIMIT: none when the folder it names is missing or, through a link,
 * outside `root`; an entry that is a link leading out of `root`, or nowhere, is left out. */
export async function sessionFiles(root: string, prefix: string, signal?: AbortSignal): Promise<string[]> {
  const slash = prefix.lastIndexOf("/");
  const dir = prefix.slice(0, slash + 1);
  const base = prefix.slice(slash + 1);
  let realRoot: string;
  let folder: string;
  try {
    realRoot = await realpath(root);
    folder = await realpath(join(root, dir));
  } catch {
    return [];
  }
  if (!isWithin(folder, realRoot)) return [];
  const paths: string[] = [];
  let links = 0;
  for (const entry of await offeredIn(folder, base, signal)) {
    if (paths.length >= FILES_LIMIT || signal?.aborted) break;
    if (entry.isSymbolicLink()) {
      // Each link is resolved: a folder of links leading out is looked at no further than this.
      if (++links > LINKS_LIMIT) break;
      const target = await realpath(join(folder, entry.name)).catch(() => undefined);
      if (target === undefined || !isWithin(target, realRoot)) continue;
    }
    paths.push(dir + entry.name + ((await isFolder(entry, folder)) ? "/" : ""));
  }
  return paths;
}
