// The files of a session's workspace for completion (GET /sessions/:id/files): what the chat's own
// `@path` completion offers for what is typed (@harness/agent/path-matches: a prefix match, else a
// bounded fuzzy search), never one that leads out of the workspace.
import { z } from "zod";
import { matchPaths, MATCHES_LIMIT, type PathMatches } from "@harness/agent/path-matches";

/** At most this many paths are answered. */
export const FILES_LIMIT = MATCHES_LIMIT;
/** The longest prefix taken (PATH_MAX on Linux), in bytes. */
export const PREFIX_MAX_BYTES = 4_096;

/** A path relative to the workspace, as typed: it cannot name anything outside it by its words. */
export const PrefixSchema = z
  .string()
  .refine((prefix) => Buffer.byteLength(prefix) <= PREFIX_MAX_BYTES, `must be at most ${PREFIX_MAX_BYTES} bytes`)
  .refine((prefix) => !prefix.includes("\0"), "must not contain NUL")
  .refine((prefix) => !prefix.startsWith("/"), "must be relative to the session's workspace, not absolute")
  .refine((prefix) => !prefix.startsWith("~/"), 'must be relative to the session\'s workspace: "~/" names a home, which the server does not offer')
  .refine((prefix) => !prefix.split("/").includes(".."), 'must not contain ".." segments');

/** The paths below `root` that `prefix` (checked by PrefixSchema) completes to, folders ending in
 * "/", at most FILES_LIMIT: those starting with it, sorted, else the fuzzy matches (`fuzzy`), as when
 * the folder it names is missing. None when that folder is, through a link, outside `root`; an
 * entry that is a link leading out of `root`, or nowhere, is left out. */
export function sessionFiles(root: string, prefix: string, signal?: AbortSignal): Promise<PathMatches> {
  return matchPaths(root, prefix, { confined: true, signal });
}
