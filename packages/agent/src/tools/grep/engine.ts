// What Grep asks of a search engine (ripgrep, or the JavaScript fallback), and the line format
// both produce.

export type GrepQuery = {
  cwd: string;
  /** Absolute path of the file or directory to search. */
  root: string;
  rootIsFile: boolean;
  pattern: string;
  ignoreCase: boolean;
  multiline: boolean;
  /** --glob patterns; a leading "!" excludes. */
  globs: string[];
  type?: string;
  /** Files to leave out of every result, in every mode (those a deny rule keeps from the search). */
  skipFile?: (file: string) => boolean;
  signal: AbortSignal;
};

export type ContentQuery = GrepQuery & {
  numbered: boolean;
  before: number;
  after: number;
  /** Output lines to skip first. */
  skip: number;
  /** Output lines wanted after the skipped ones; undefined for as many as fit. */
  take: number | undefined;
  /** Stop once the wanted lines hold this many characters. */
  charBudget: number;
};

export type ContentResult = {
  lines: string[];
  /** Whether output lines were left out after the ones returned. */
  more: boolean;
  /** Why the lines stop: `take` reached, or the character budget. */
  cut?: "limit" | "budget";
};

export type FileCount = { file: string; count: number };
export type EngineError = { error: string };

export type GrepEngine = {
  /** Absolute paths of the files with a match, in no particular order. */
  files(query: GrepQuery): Promise<string[] | EngineError>;
  /** Matching lines (in multiline mode, matches) per file, in path order. */
  counts(query: GrepQuery): Promise<FileCount[] | EngineError>;
  content(query: ContentQuery): Promise<ContentResult | EngineError>;
};

export const MAX_LINE_CHARS = 2000;

/** ripgrep's format: "path:12:text" for a matching line, "path-12-text" for context. */
export function formatLine(shownPath: string, lineNumber: number | undefined, isMatch: boolean, text: string): string {
  const mark = isMatch ? ":" : "-";
  const body = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}… [line cut]` : text;
  return lineNumber === undefined ? `${shownPath}${mark}${body}` : `${shownPath}${mark}${lineNumber}${mark}${body}`;
}

/** Collects content lines: skips the first `skip`, keeps `take` (or what fits in the budget), and
 * notices whether more would follow. `push` returns false once nothing more is wanted. */
export function createLineCollector(query: Pick<ContentQuery, "skip" | "take" | "charBudget">) {
  const result: ContentResult = { lines: [], more: false };
  let skipped = 0;
  let chars = 0;
  const push = (line: string): boolean => {
    if (result.more) return false;
    if (skipped < query.skip) {
      skipped++;
      return true;
    }
    if (query.take !== undefined && result.lines.length >= query.take) {
      result.more = true;
      result.cut = "limit";
      return false;
    }
    if (chars + line.length + 1 > query.charBudget && result.lines.length > 0) {
      result.more = true;
      result.cut = "budget";
      return false;
    }
    result.lines.push(line);
    chars += line.length + 1;
    return true;
  };
  return { push, result };
}
