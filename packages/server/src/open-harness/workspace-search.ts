// files.search: the files (and, by name alone, folders) below a folder of a session's workspace whose
// path matches a glob, and/or whose text has lines a regular expression matches. Bounded: at most
// max_results matches, SEARCH_MAX_ENTRIES entries walked, SEARCH_MAX_MS of time (a regular
// expression that backtracks for ever is stopped too: it runs in a vm context with a timeout); what
// was found by then is answered, with `truncated` and why.
import { stat } from "node:fs/promises";
import { Script, createContext } from "node:vm";
import { ApiError } from "./errors.ts";
import { type FileInfo, infoOf, openFile } from "./workspace-files.ts";
import { globMatcher } from "./workspace-glob.ts";
import { confined, refusalOf } from "./workspace-paths.ts";
import { walk } from "./workspace-walk.ts";

export const SEARCH_MAX_MS = 10_000;
export const SEARCH_MAX_ENTRIES = 100_000;
/** Per file: the lines answered, and the characters of each; files larger are not read. */
export const LINE_MATCHES_MAX = 100;
export const LINE_MAX_CHARS = 1000;
export const GREP_FILE_MAX_BYTES = 10 * 1024 * 1024;
/** Folders passed by unless include_ignored, the start path or the glob names them. */
export const IGNORED = [".git", "node_modules", ".hg", ".svn"];

/** `timeMs`: SEARCH_MAX_MS unless given. */
export type SearchRequest = { glob?: string; grep?: string; path: string; maxResults: number; includeIgnored: boolean; timeMs?: number };
type LineMatch = { line_number: number; content: string };
export type FileMatch = { file: FileInfo; line_matches?: LineMatch[] };
export type SearchResult = { matches: FileMatch[]; truncated?: true; reason?: "max_results" | "time_limit" | "entry_limit" };

/** The regular expression `grep`, or a 400 naming what is wrong with it. */
export function checkedPattern(grep: string): RegExp {
  try {
    return new RegExp(grep);
  } catch (error) {
    throw new ApiError(400, "invalid_request", `grep: not a valid regular expression: ${(error as Error).message}`, "files.search");
  }
}

export async function searchFiles(root: string, request: SearchRequest): Promise<SearchResult> {
  const { grep, path: start, maxResults } = request;
  // From "/" as the spec writes paths: the start folder.
  const glob = request.glob?.replace(/^\/+/, "");
  if (grep !== undefined) checkedPattern(grep);
  const deadline = Date.now() + (request.timeMs ?? SEARCH_MAX_MS);
  const named = new Set(glob?.split("/") ?? []);
  const ignored = (name: string) => !request.includeIgnored && IGNORED.includes(name) && !named.has(name);
  const matches: FileMatch[] = [];
  let reason: SearchResult["reason"];
  let walked = 0;
  const lines = grep === undefined ? undefined : lineMatcher(grep);
  const globMatches = glob === undefined ? undefined : globMatcher(glob);
  // The paths of the folder being walked that the glob matches, all found when it is entered.
  let matched = new Set<string>();
  const met = (paths: string[]) => {
    const belows = paths.map((path) => (start === "" ? path : path.slice(start.length + 1)));
    try {
      const hits = globMatches!(belows, deadline - Date.now());
      matched = new Set(paths.filter((_, i) => hits[i]));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw error;
      matched = new Set();
      reason ??= "time_limit";
    }
  };
  const real = await confined(root, start).catch((error) => {
    throw refusalOf(error, start);
  });
  if (!(await isFolder(real, start))) return { matches };
  await walk(
    root,
    real,
    start,
    async ({ path, real: at, stats }) => {
      if (++walked > SEARCH_MAX_ENTRIES) return void (reason = "entry_limit");
      // A folder passed by is not a match either.
      if (stats.isDirectory() && ignored(path.slice(path.lastIndexOf("/") + 1))) return;
      if (glob !== undefined && !matched.has(path)) return;
      if (!lines) {
        if (matches.length === maxResults) return void (reason = "max_results");
        matches.push({ file: await infoOf(path, at, stats) });
        return;
      }
      if (!stats.isFile() || stats.size > GREP_FILE_MAX_BYTES) return;
      const found = await grepFile(root, path, lines, deadline);
      if (found === "timeout") return void (reason = "time_limit");
      if (!found) return;
      if (matches.length === maxResults) return void (reason = "max_results");
      matches.push(found);
    },
    {
      skip: ignored,
      ...(globMatches && { met }),
      stop: () => {
        if (reason === undefined && Date.now() > deadline) reason = "time_limit";
        return reason !== undefined;
      },
    },
  );
  return { matches, ...(reason !== undefined && { truncated: true, reason }) };
}

/** Whether the folder `real` (`relative`) is there: a file there is a 400, a folder not there a 404
 * (but the workspace itself, which no run may have made yet: it is empty). */
async function isFolder(real: string, relative: string): Promise<boolean> {
  const stats = await stat(real).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw refusalOf(error, relative);
  });
  if (!stats) {
    if (relative === "") return false;
    throw new ApiError(404, "file_not_found", `path: no folder "${relative}" in the session's workspace`, "files.search");
  }
  if (!stats.isDirectory()) throw new ApiError(400, "invalid_request", `path: "${relative}" is a file, not a folder to search in`, "files.search");
  return true;
}

type Lines = (text: string, timeoutMs: number) => number[];

/** The numbers (from 0) of the lines of a text that `grep` matches, at most LINE_MATCHES_MAX; run in
 * a context of its own, so that a timeout stops it wherever it is. */
function lineMatcher(grep: string): Lines {
  const context = createContext({ source: grep, text: "", max: LINE_MATCHES_MAX });
  const script = new Script(`(() => {
    const pattern = new RegExp(source);
    const found = [];
    const lines = text.split("\\n");
    for (let i = 0; i < lines.length && found.length < max; i++) if (pattern.test(lines[i])) found.push(i);
    return found.join(",");
  })()`);
  return (text, timeoutMs) => {
    context.text = text;
    const found = script.runInContext(context, { timeout: Math.max(1, timeoutMs) }) as string;
    context.text = "";
    return found === "" ? [] : found.split(",").map(Number);
  };
}

/** The lines of the file `relative` that match, as a FileMatch; undefined when none does or it is
 * not text (a NUL in it), or gone; "timeout" when the time is up. */
async function grepFile(root: string, relative: string, lines: Lines, deadline: number): Promise<FileMatch | "timeout" | undefined> {
  const opened = await openFile(root, relative).catch(() => undefined);
  if (!opened) return undefined;
  let bytes: Buffer;
  try {
    if (opened.info.size_bytes! > GREP_FILE_MAX_BYTES) return undefined;
    bytes = await opened.handle.readFile();
  } finally {
    await opened.handle.close();
  }
  if (bytes.length > GREP_FILE_MAX_BYTES || bytes.includes(0)) return undefined;
  const text = bytes.toString("utf8");
  let numbers: number[];
  try {
    numbers = lines(text, deadline - Date.now());
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_SCRIPT_EXECUTION_TIMEOUT") return "timeout";
    throw error;
  }
  if (numbers.length === 0) return undefined;
  const all = text.split("\n");
  const line_matches = numbers.map((n) => ({ line_number: n + 1, content: cut(all[n].replace(/\r$/, "")) }));
  return { file: opened.info, line_matches };
}

const cut = (line: string) => (line.length > LINE_MAX_CHARS ? `${line.slice(0, LINE_MAX_CHARS)}…` : line);
