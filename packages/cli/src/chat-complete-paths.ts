// `@path` completion in `harness chat`: the paths of the project a word starting with "@" may name,
// in the form the agent reads such a mention (a space behind a backslash, see the agent's
// context/markdown-imports.ts). What is typed names a folder and the start of a name in it; when no
// name there starts with it, its characters in order anywhere in a path below the project do (a
// fuzzy match: `srcchat` finds `src/chat.ts`). Hidden names come only when what is typed starts
// with a dot; node_modules and .git only when named in full. Every read is bounded and
// asynchronous: a Tab in a huge tree, or on a folder that cannot be read, never holds the chat.
import type { Dirent } from "node:fs";
import { opendir, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** The fuzzy search stops after reading this many entries… */
export const WALK_LIMIT = 5_000;
/** …or finding this many paths. */
export const FUZZY_CANDIDATES = 50;
/** Names left out unless named in full: they hold more than anyone means to mention. */
const BULKY = new Set(["node_modules", ".git"]);

/** The paths `typed` (what follows "@", as typed) may complete to, as they would be typed (folders
 * ending in "/"), best first. None for what cannot be read. */
export async function completePath(typed: string, cwd: string, home = homedir()): Promise<string[]> {
  const plain = typed.replace(/\\ /g, " ").replace(/\\$/, "");
  const slash = plain.lastIndexOf("/");
  const dir = plain.slice(0, slash + 1);
  const base = plain.slice(slash + 1);
  const where = dir.startsWith("~/") ? join(home, dir.slice(2)) : resolve(cwd, dir || ".");
  const inDir = await namesIn(where, WALK_LIMIT);
  const started = [];
  for (const entry of inDir) {
    if (!entry.name.startsWith(base) || !shown(entry.name, base)) continue;
    started.push(dir + entry.name + ((await isFolder(entry, where)) ? "/" : ""));
  }
  if (started.length > 0 || base === "" || dir.startsWith("~/") || dir.startsWith("/")) return started.map(escaped);
  return (await fuzzy(plain, resolve(cwd))).map(escaped);
}

/** Whether `name` is offered for `base`, the start of a name typed. */
function shown(name: string, base: string): boolean {
  if (BULKY.has(name)) return base === name;
  if (name.startsWith(".") && !base.startsWith(".")) return false;
  // A mention ends at whitespace other than an escaped space, or at a backslash; "#" starts a
  // fragment: a name with any of them cannot be mentioned.
  return !/[\\#\t\n\r\f\v]/.test(name);
}

/** The entries of `dir` (at most `limit`), sorted by name; none when it cannot be read. */
async function namesIn(dir: string, limit: number): Promise<Dirent[]> {
  const entries: Dirent[] = [];
  try {
    for await (const entry of await opendir(dir)) {
      entries.push(entry);
      if (entries.length >= limit) break;
    }
  } catch {
    // Not there, not a folder, not readable: nothing to offer.
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** A folder, or a link to one. */
async function isFolder(entry: Dirent, dir: string): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  return stat(join(dir, entry.name)).then((s) => s.isDirectory(), () => false);
}

/** Paths below `root`, folder by folder (nearest first), that hold the characters of `query` in
 * order, case not minded; shortest first. Links are not followed (a loop would never end). */
async function fuzzy(query: string, root: string): Promise<string[]> {
  const wanted = query.toLowerCase().replaceAll("/", "");
  const hidden = query.startsWith(".");
  const found: string[] = [];
  const queue = [""];
  let read = 0;
  while (queue.length > 0 && read < WALK_LIMIT && found.length < FUZZY_CANDIDATES) {
    const dir = queue.shift()!;
    for (const entry of await namesIn(join(root, dir), WALK_LIMIT - read)) {
      read++;
      if (BULKY.has(entry.name) || (entry.name.startsWith(".") && !hidden) || !shown(entry.name, hidden ? "." : "")) continue;
      const path = dir + entry.name + (entry.isDirectory() ? "/" : "");
      if (entry.isDirectory()) queue.push(path);
      if (inOrder(wanted, path.toLowerCase())) found.push(path);
      if (found.length >= FUZZY_CANDIDATES) break;
    }
  }
  return found.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

/** Whether the characters of `wanted` are in `text`, in order. */
function inOrder(wanted: string, text: string): boolean {
  let at = 0;
  for (const char of text) if (char === wanted[at]) at++;
  return at === wanted.length;
}

function escaped(path: string): string {
  return path.replaceAll(" ", "\\ ");
}
