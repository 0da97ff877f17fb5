// Searching one file with a JavaScript regular expression, the way ripgrep does: line by line, or
// across lines in multiline mode. Binary files (a NUL byte near the start) never match.
import fs from "node:fs/promises";

/** Files larger than this are not searched. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8192;

export type Matcher = {
  /** Without the g flag; tested against one line at a time. */
  line: RegExp;
  /** With the g, m (and in multiline mode s) flags; run over the whole text. */
  global: RegExp;
  multiline: boolean;
  /** The pattern itself when it has no special characters, for a quick check of the whole file. */
  literal?: string;
};

export type FileMatches = {
  /** The file's lines; present when the caller asked for them. */
  lines?: string[];
  /** Indices (from 0) of the lines that match, ascending. In multiline mode, every line a match spans. */
  matchedLines: number[];
  /** Matching lines, or in multiline mode the number of matches. */
  count: number;
};

export function buildMatcher(pattern: string, options: { ignoreCase: boolean; multiline: boolean }): Matcher | { error: string } {
  let source = pattern;
  let flags = options.ignoreCase ? "i" : "";
  // Inline flags as ripgrep writes them, e.g. "(?i)foo".
  const inline = /^\(\?([is]+)\)/.exec(source);
  if (inline) {
    source = source.slice(inline[0].length);
    for (const flag of inline[1]) if (!flags.includes(flag)) flags += flag;
  }
  if (options.multiline && !flags.includes("s")) flags += "s";
  const lineFlags = flags.replace("s", "");
  let line: RegExp;
  let global: RegExp;
  try {
    ({ line, global } = compile(source, lineFlags, flags, "u"));
  } catch {
    try {
      ({ line, global } = compile(source, lineFlags, flags, ""));
    } catch (error) {
      return {
        error: `Invalid regular expression ${JSON.stringify(pattern)}: ${error instanceof Error ? error.message : String(error)}. Grep uses JavaScript regular expression syntax; escape special characters such as ( ) [ ] { } . * + ? | with a backslash to match them literally.`,
      };
    }
  }
  const literal = !/[\\^$.*+?()[\]{}|]/.test(source) && !flags.includes("i") ? source : undefined;
  return { line, global, multiline: options.multiline, ...(literal !== undefined && { literal }) };
}

function compile(source: string, lineFlags: string, flags: string, unicode: string) {
  return { line: new RegExp(source, lineFlags + unicode), global: new RegExp(source, `g${flags.includes("m") ? "" : "m"}${flags}${unicode}`) };
}

export async function searchFile(file: string, matcher: Matcher, keepLines: boolean): Promise<FileMatches | undefined> {
  let buffer: Buffer;
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return undefined;
    buffer = await fs.readFile(file);
  } catch {
    return undefined;
  }
  if (buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return undefined;
  const text = buffer.toString("utf8");
  if (matcher.literal !== undefined && !text.includes(matcher.literal)) return undefined;
  return matcher.multiline ? searchAcrossLines(text, matcher, keepLines) : searchLines(text, matcher, keepLines);
}

function searchLines(text: string, matcher: Matcher, keepLines: boolean): FileMatches | undefined {
  const lines = splitLines(text);
  const matchedLines: number[] = [];
  for (let i = 0; i < lines.length; i++) if (matcher.line.test(lines[i])) matchedLines.push(i);
  if (matchedLines.length === 0) return undefined;
  return { matchedLines, count: matchedLines.length, ...(keepLines && { lines }) };
}

function searchAcrossLines(text: string, matcher: Matcher, keepLines: boolean): FileMatches | undefined {
  const regex = matcher.global;
  regex.lastIndex = 0;
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const matched = new Set<number>();
  let count = 0;
  for (let match = regex.exec(text); match; match = regex.exec(text)) {
    count++;
    const first = lineOf(lineStarts, match.index);
    const last = lineOf(lineStarts, match.index + Math.max(0, match[0].length - 1));
    for (let line = first; line <= last; line++) matched.add(line);
    if (match[0].length === 0) regex.lastIndex++;
  }
  if (count === 0) return undefined;
  const matchedLines = [...matched].sort((a, b) => a - b);
  return { matchedLines, count, ...(keepLines && { lines: splitLines(text) }) };
}

/** Lines without their terminators; a final newline does not start an extra empty line. */
function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  for (let i = 0; i < lines.length; i++) if (lines[i].endsWith("\r")) lines[i] = lines[i].slice(0, -1);
  return lines;
}

function lineOf(lineStarts: readonly number[], offset: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (lineStarts[mid] <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}
