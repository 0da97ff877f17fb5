// The files of a session's workspace for completion (GET /sessions/:id/files): what the chat's own
// `@path` completion offers for what is typed (@harness/agent/path-matches: a prefix match, else a
// bounded fuzzy search), never one that leads out of the workspace.
import { z } from "zod";
import { matchPaths, MATCHES_LIMIT, type PathMatches } from "@harness/agent/path-matches";

/** At most this many paths are answered. */
export const FILES_LIMIT = MATCHES_LIMIT;
/** The longest path taken (PATH_MAX on Linux), in bytes. */
export const PATH_MAX_BYTES = 4_096;

/** A path relative to a session's workspace, as a request gives it: it cannot name anything outside
 * it by its words (where its links lead is the reader's to check). The files routes of the Open
 * Harness API take their paths by it too. */
export const RelativePathSchema = z
  .string()
  .refine((path) => Buffer.byteLength(path) <= PATH_MAX_BYTES, `must be at most ${PATH_MAX_BYTES} bytes`)
  .refine((path) => !path.includes("\0"), "must not contain NUL")
  .refine((path) => !path.startsWith("/"), "must be relative to the session's workspace, not absolute")
  .refine((path) => !path.startsWith("~/"), 'must be relative to the session\'s workspace: "~/" names a home, which the server does not offer')
  .refine((path) => !path.split("/").includes(".."), 'must not contain ".." segments');

/** The paths below `root` that `prefix` (checked by RelativePathSchema) completes to, folders ending in
 * "/", at most FILES_LIMIT: those starting with it, sorted, else the fuzzy matches (`fuzzy`), as when
 * the folder it names is missing. None when that folder is, through a link, outside `root`; an
 * entry that is a link leading out of `root`, or nowhere, is left out. */
export function sessionFiles(root: string, prefix: string, signal?: AbortSignal): Promise<PathMatches> {
  return matchPaths(root, prefix, { confined: true, signal });
}
