// `@path` completion in `harness chat`: the paths of the project a word starting with "@" may name,
// in the form the agent reads such a mention (a space behind a backslash, "./" before a name that
// could not start one), as the agent's own reading of mentions (context/markdown-imports.ts) says;
// a file no mention could name (its name ends in sentence punctuation, which the reading leaves
// out) is not offered. What is typed names a folder and the start of a name in it; when no
// name there starts with it, its characters in order anywhere in a path below the project do (a
// fuzzy match: `srcchat` finds `src/chat.ts`). Hidden names come only when what is typed starts
// with a dot; node_modules and .git only when named in full. Every read is bounded and
// asynchronous: a Tab in a huge tree, or on a folder that cannot be read, never holds the chat.
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { findImports } from "@harness/agent/markdown-imports";
import { BULKY, isFolder, namesIn, offeredIn, shown } from "@harness/agent/path-names";

/** The fuzzy search stops after reading this many entries… */
export const WALK_LIMIT = 5_000;
/** …or finding this many paths. */
export const FUZZY_CANDIDATES = 50;

/** The paths `typed` (what follows "@", as typed) may complete to, as they would be typed (folders
 * ending in "/"), best first. None for what cannot be read, nor once `signal` aborts (the search
 * stops). */
export async function completePath(typed: string, cwd: string, home = homedir(), signal?: AbortSignal): Promise<string[]> {
  const plain = typed.replace(/\\ /g, " ").replace(/\\$/, "");
  const slash = plain.lastIndexOf("/");
  const dir = plain.slice(0, slash + 1);
  const base = plain.slice(slash + 1);
  const where = dir.startsWith("~/") ? join(home, dir.slice(2)) : resolve(cwd, dir || ".");
  const inDir = await offeredIn(where, base, signal);
  const started: string[] = [];
  for (const entry of inDir) {
    if (signal?.aborted) return [];
    const mention = asMention(dir + entry.name + ((await isFolder(entry, where)) ? "/" : ""));
    if (mention !== undefined) started.push(mention);
  }
  if (started.length > 0 || base === "" || dir.startsWith("~/") || dir.startsWith("/")) return started;
  const found = await fuzzy(plain, resolve(cwd), signal);
  return signal?.aborted ? [] : found;
}

/** Lists the paths of a project elsewhere (a session's workspace on a server) that start with a
 * prefix, relative to it, folders ending in "/". */
export type ListFiles = (prefix: string, signal?: AbortSignal) => Promise<readonly string[]>;

/** completePath for a project that `list` reads (no fuzzy search there): none for a path from the
 * home or the root, which would be the server's, nor when `list` fails. */
export async function completeListedPath(typed: string, list: ListFiles, signal?: AbortSignal): Promise<string[]> {
  const plain = typed.replace(/\\ /g, " ").replace(/\\$/, "");
  if (plain.startsWith("~/") || plain.startsWith("/")) return [];
  try {
    const paths = await list(plain, signal);
    return paths.map(asMention).filter((mention) => mention !== undefined);
  } catch {
    return [];
  }
}

/** Paths below `root`, folder by folder (nearest first), that hold the characters of `query` in
 * order, case not minded; shortest first. Links are not followed (a loop would never end). */
async function fuzzy(query: string, root: string, signal?: AbortSignal): Promise<string[]> {
  const wanted = query.toLowerCase().replaceAll("/", "");
  const hidden = query.startsWith(".");
  const found: { path: string; mention: string }[] = [];
  const queue = [""];
  let read = 0;
  while (queue.length > 0 && read < WALK_LIMIT && found.length < FUZZY_CANDIDATES && !signal?.aborted) {
    const dir = queue.shift()!;
    for (const entry of await namesIn(join(root, dir), WALK_LIMIT - read, undefined, signal)) {
      read++;
      if (BULKY.has(entry.name) || (entry.name.startsWith(".") && !hidden) || !shown(entry.name, hidden ? "." : "")) continue;
      const path = dir + entry.name + (entry.isDirectory() ? "/" : "");
      if (entry.isDirectory()) queue.push(path);
      const mention = asMention(path);
      if (mention !== undefined && inOrder(wanted, path.toLowerCase())) found.push({ path, mention });
      if (found.length >= FUZZY_CANDIDATES) break;
    }
  }
  return found.sort((a, b) => a.path.length - b.path.length || (a.path < b.path ? -1 : 1)).map((f) => f.mention);
}

/** Whether the characters of `wanted` are in `text`, in order. */
export function inOrder(wanted: string, text: string): boolean {
  let at = 0;
  for (const char of text) if (char === wanted[at]) at++;
  return at === wanted.length;
}

/** `path` as a mention the agent reads as that path, asked of its reading of mentions: its spaces
 * behind a backslash, behind "./" when the bare form is not read as one (a name that starts with
 * something else than a letter, a digit or one of ._-); undefined when no form is (a name ending in
 * sentence punctuation, which the reading leaves out). */
function asMention(path: string): string | undefined {
  const spaced = path.replaceAll(" ", "\\ ");
  return [spaced, `./${spaced}`].find((form) => findImports(`@${form}`)[0] === form.replaceAll("\\ ", " "));
}
