// The paths `@path` completion offers for what is typed, in one place for the chat's own completion
// (the CLI's chat/input/complete-paths.ts) and the server's listing of a session's files (GET
// /sessions/:id/files), so that a chat completes alike on its own and on a shared server. What is
// typed names a folder and the start of a name in it; when no name there starts with it, its
// characters in order anywhere in a path below the project do (a fuzzy match: `srcchat` finds
// `src/chat.ts`). Only paths a mention can name are offered, as the agent's reading of mentions
// (context/markdown-imports.ts) says. Every read is bounded and stops once the signal aborts.
import { realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
import { findImports } from "../context/markdown-imports.ts";
import { isFolder, namesIn, offeredIn, shown } from "./path-names.ts";
import { isWithin } from "./real-paths.ts";

/** The fuzzy search stops after reading this many entries… */
export const WALK_LIMIT = 5_000;
/** …or finding this many paths. */
export const FUZZY_CANDIDATES = 50;
/** At most this many paths are answered. */
export const MATCHES_LIMIT = 200;
/** At most this many links are resolved for one answer, where links must stay inside. */
const LINKS_LIMIT = 2 * MATCHES_LIMIT;

/** Paths relative to the project (or as typed, from the home or the root), folders ending in "/",
 * best first; `fuzzy` when they hold the typed characters in order rather than start with them. */
export type PathMatches = { paths: string[]; fuzzy: boolean };

export type MatchOptions = {
  /** Where "~/" leads; without it "~" is a plain name. */
  home?: string;
  /** Leave out whatever leads out of the project through a link (a server's workspace). */
  confined?: boolean;
  signal?: AbortSignal;
};

const NONE: PathMatches = { paths: [], fuzzy: false };

/** The paths `plain` (what follows "@", its escaped spaces unescaped) may complete to below
 * `root`: those in the folder it names that start with its last name, sorted; else, unless it is
 * empty or names a folder from the home or the root, the fuzzy matches below `root`, shortest
 * first. None for what cannot be read, nor once `signal` aborts. */
export async function matchPaths(root: string, plain: string, options: MatchOptions = {}): Promise<PathMatches> {
  const { signal } = options;
  const slash = plain.lastIndexOf("/");
  const dir = plain.slice(0, slash + 1);
  const base = plain.slice(slash + 1);
  const fromHome = options.home !== undefined && dir.startsWith("~/");
  let top = resolve(root);
  let where = fromHome ? join(options.home!, dir.slice(2)) : resolve(root, dir || ".");
  let there = true;
  if (options.confined) {
    try {
      top = await realpath(top);
    } catch {
      return NONE;
    }
    // A folder that is not there (mistyped) holds nothing, and the fuzzy search below `top` may
    // still find what was meant, as it does unconfined; one that leads out answers nothing.
    const real = await realpath(where).catch(() => undefined);
    if (real !== undefined && !isWithin(real, top)) return NONE;
    there = real !== undefined;
    where = real ?? where;
  }
  const inside = linkCheck(top, options.confined === true);
  const started: string[] = [];
  for (const entry of there ? await offeredIn(where, base, signal) : []) {
    if (started.length >= MATCHES_LIMIT || signal?.aborted) break;
    const leads = await inside(entry.isSymbolicLink(), join(where, entry.name));
    if (leads === "stop") break;
    if (leads === "out") continue;
    const path = dir + entry.name + ((await isFolder(entry, where)) ? "/" : "");
    if (asMention(path) !== undefined) started.push(path);
  }
  if (signal?.aborted) return NONE;
  if (started.length > 0 || base === "" || fromHome || dir.startsWith("/")) return { paths: started, fuzzy: false };
  const found = await fuzzy(plain, top, inside, signal);
  return signal?.aborted ? NONE : { paths: found, fuzzy: true };
}

type LinkCheck = (isLink: boolean, path: string) => Promise<"in" | "out" | "stop">;

/** Whether an entry stays inside `top`: a link is resolved, when `confined`, up to LINKS_LIMIT of
 * them (then "stop": a folder of links leading out is looked at no further). */
function linkCheck(top: string, confined: boolean): LinkCheck {
  let links = 0;
  return async (isLink, path) => {
    if (!confined || !isLink) return "in";
    if (++links > LINKS_LIMIT) return "stop";
    const target = await realpath(path).catch(() => undefined);
    return target !== undefined && isWithin(target, top) ? "in" : "out";
  };
}

/** Paths below `root`, folder by folder (nearest first), that hold the characters of `query` in
 * order, case not minded; shortest first. Links are not followed (a loop would never end). */
async function fuzzy(query: string, root: string, inside: LinkCheck, signal?: AbortSignal): Promise<string[]> {
  const wanted = query.toLowerCase().replaceAll("/", "");
  const hidden = query.startsWith(".");
  const found: string[] = [];
  const queue = [""];
  let read = 0;
  walk: while (queue.length > 0 && read < WALK_LIMIT && found.length < FUZZY_CANDIDATES && !signal?.aborted) {
    const dir = queue.shift()!;
    for (const entry of await namesIn(join(root, dir), WALK_LIMIT - read, undefined, signal)) {
      read++;
      // Offered as for a typed "." or nothing: hidden names only for a query starting with ".",
      // node_modules and .git never.
      if (!shown(entry.name, hidden ? "." : "")) continue;
      const path = dir + entry.name + (entry.isDirectory() ? "/" : "");
      if (entry.isDirectory()) queue.push(path);
      if (asMention(path) === undefined || !inOrder(wanted, path.toLowerCase())) continue;
      const leads = await inside(entry.isSymbolicLink(), join(root, path));
      if (leads === "stop") break walk;
      if (leads === "in") found.push(path);
      if (found.length >= FUZZY_CANDIDATES) break;
    }
  }
  return found.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
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
export function asMention(path: string): string | undefined {
  const spaced = path.replaceAll(" ", "\\ ");
  return [spaced, `./${spaced}`].find((form) => findImports(`@${form}`)[0] === form.replaceAll("\\ ", " "));
}
