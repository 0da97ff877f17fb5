// files.search: the files (and, by name alone, folders) below a folder of a session's workspace whose
// path matches a glob, and/or whose text has lines a regular expression matches. Bounded: at most
// max_results matches, SEARCH_MAX_ENTRIES entries walked, SEARCH_MAX_MS of time (a regular
// expression that backtracks for ever is stopped too, and the server's other work goes on while one
// matches: sliced-match.ts); what was found by then is answered, with `truncated` and why.
import { ApiError } from "./errors.ts";
import { slicedMatcher, type SlicedMatcher } from "./sliced-match.ts";
import { type FileInfo, openFile, walkedInfo } from "./workspace-files.ts";
import { globMatcher } from "./workspace-glob.ts";
import { confined, openedStats, refusalOf } from "./workspace-paths.ts";
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
  const lines = grep === undefined ? undefined : slicedMatcher({ source: grep }, "((pattern) => (line) => pattern.test(line))(new RegExp(source))");
  const globMatches = glob === undefined ? undefined : globMatcher(glob);
  // The paths of the folder being walked that the glob matches, all found when it is entered.
  let matched = new Set<string>();
  const met = async (paths: string[]) => {
    const belows = paths.map((path) => (start === "" ? path : path.slice(start.length + 1)));
    const hits = await globMatches!(belows, deadline);
    if (hits === "timeout") {
      matched = new Set();
      reason ??= "time_limit";
    } else matched = new Set(paths.filter((_, i) => hits[i]));
  };
  const real = await confined(root, start).catch((error) => {
    throw refusalOf(error, start);
  });
  if (!(await isFolder(root, real, start))) return { matches };
  await walk(
    root,
    real,
    start,
    async (entry) => {
      const { path, stats } = entry;
      if (++walked > SEARCH_MAX_ENTRIES) return void (reason = "entry_limit");
      // A folder passed by is not a match either.
      if (stats.isDirectory() && ignored(path.slice(path.lastIndexOf("/") + 1))) return;
      if (glob !== undefined && !matched.has(path)) return;
      if (!lines) {
        if (matches.length === maxResults) return void (reason = "max_results");
        matches.push({ file: await walkedInfo(entry) });
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
async function isFolder(root: string, real: string, relative: string): Promise<boolean> {
  const stats = await openedStats(root, real, relative).catch((error) => {
    throw refusalOf(error, relative);
  });
  if (!stats) {
    if (relative === "") return false;
    throw new ApiError(404, "file_not_found", `path: no folder "${relative}" in the session's workspace`, "files.search");
  }
  if (!stats.isDirectory()) throw new ApiError(400, "invalid_request", `path: "${relative}" is a file, not a folder to search in`, "files.search");
  return true;
}

/** The lines of the file `relative` that match, as a FileMatch; undefined when none does or it is
 * not text (a NUL in it), or gone; "timeout" when the time is up. */
async function grepFile(root: string, relative: string, lines: SlicedMatcher, deadline: number): Promise<FileMatch | "timeout" | undefined> {
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
  const all = bytes.toString("utf8").split("\n");
  const numbers = await lines(all, deadline, LINE_MATCHES_MAX);
  if (numbers === "timeout") return numbers;
  if (numbers.length === 0) return undefined;
  const line_matches = numbers.map((n) => ({ line_number: n + 1, content: cut(all[n].replace(/\r$/, "")) }));
  return { file: opened.info, line_matches };
}

const cut = (line: string) => (line.length > LINE_MAX_CHARS ? `${line.slice(0, LINE_MAX_CHARS)}…` : line);
