// `@path` completion in `harness chat`: the paths of the project a word starting with "@" may name,
// in the form the agent reads such a mention (a space behind a backslash, "./" before a name that
// could not start one). Which paths those are (a prefix match, else a bounded fuzzy search below
// the project: `srcchat` finds `src/chat.ts`) is the agent's matchPaths, the same the server answers
// with for a session's workspace on a shared server: a chat completes alike on its own and there.
// Every read is bounded and asynchronous: a Tab in a huge tree, or on a folder that cannot be read,
// never holds the chat.
import { homedir } from "node:os";
import { asMention, matchPaths } from "@harness/agent/path-matches";

export { FUZZY_CANDIDATES, inOrder, WALK_LIMIT } from "@harness/agent/path-matches";

/** The paths `typed` (what follows "@", as typed) may complete to, as they would be typed (folders
 * ending in "/"), best first. None for what cannot be read, nor once `signal` aborts (the search
 * stops). */
export async function completePath(typed: string, cwd: string, home = homedir(), signal?: AbortSignal): Promise<string[]> {
  const { paths } = await matchPaths(cwd, unescaped(typed), { home, signal });
  return mentions(paths);
}

/** Lists the paths of a project elsewhere (a session's workspace on a server) that `typed`
 * completes to (matchPaths there), relative to it, folders ending in "/". */
export type ListFiles = (prefix: string, signal?: AbortSignal) => Promise<readonly string[]>;

/** completePath for a project that `list` reads: none for a path from the home or the root, which
 * would be the server's, nor when `list` fails. */
export async function completeListedPath(typed: string, list: ListFiles, signal?: AbortSignal): Promise<string[]> {
  const plain = unescaped(typed);
  if (plain.startsWith("~/") || plain.startsWith("/")) return [];
  try {
    return mentions(await list(plain, signal));
  } catch {
    return [];
  }
}

function unescaped(typed: string): string {
  return typed.replace(/\\ /g, " ").replace(/\\$/, "");
}

function mentions(paths: readonly string[]): string[] {
  return paths.map(asMention).filter((mention) => mention !== undefined);
}
