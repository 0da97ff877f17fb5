import fs from "node:fs/promises";
import { z } from "zod";
import { defineTool } from "../../define-tool.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "../../truncate.ts";
import type { Tool, ToolOutput } from "../../types.ts";
import { newestFirst } from "../glob.ts";
import type { GrepEngine, GrepQuery } from "./engine.ts";
import { displayPath, errorCode, errorText, resolvePath, specialFileProblem } from "../paths.ts";

/** Files (or counts) listed when head_limit does not say otherwise. */
export const GREP_MAX_ENTRIES = 500;
/** Room left below the loop's output cap for the header and notes. */
const OUTPUT_BUDGET = MAX_TOOL_OUTPUT_CHARS - 1_000;

const description = `Searches file contents with a regular expression, using ripgrep.

Usage:
- Always use Grep for content searches; do not run grep or rg through Bash.
- pattern is a regular expression in ripgrep's syntax, for example "log.*Error" or "function\\s+\\w+". Escape special characters to match them literally: "interface\\{\\}" finds "interface{}".
- path is a file or directory to search, absolute or relative to the shell's current directory (where Bash's \`cd\` left it; at first the project's directory), which it defaults to; paths found inside that directory are shown relative to it. Hidden files are searched; .git and other version-control directories, files ignored by .gitignore (in a git repository), and binary files are skipped.
- Narrow the files with glob (for example "*.js" or "src/**/*.{ts,tsx}"; a glob without "/" matches file names anywhere, a leading "!" excludes; several globs can be separated by spaces) or with type (for example "js", "py", "rust", "go"; faster than glob for standard file types).
- output_mode: "files_with_matches" (default) lists the matching files, most recently modified first; "content" shows the matching lines as path:line:text; "count" shows how many lines match in each file.
- In content mode, "-n" shows line numbers (default true) and "-A", "-B", "-C" show lines after, before, or around each match.
- "-i" ignores case. multiline lets a pattern span lines, with "." matching newlines, for example "struct \\{[\\s\\S]*?field".
- head_limit keeps only the first N results (lines, files or counts) and offset skips the first N, to page through long results. Results are capped (at most ${GREP_MAX_ENTRIES} files or counts, and about ${Math.round(OUTPUT_BUDGET / 1000)},000 characters of lines); the result says when and where to continue, but narrowing the search is usually better.
- Files that deny rules keep from being read are left out of the results.
- For open-ended searches that need several rounds, make several Grep and Glob calls in one reply.`;

const parameters = z.strictObject({
  pattern: z.string().min(1).describe("The regular expression to search for in file contents"),
  path: z.string().optional().describe("File or directory to search in (default: the shell's current directory)"),
  glob: z.string().optional().describe('Glob pattern to filter files, e.g. "*.js" or "*.{ts,tsx}"'),
  output_mode: z
    .enum(["content", "files_with_matches", "count"])
    .optional()
    .describe('"content" shows matching lines, "files_with_matches" shows file paths (default), "count" shows match counts'),
  "-B": z.number().int().min(0).optional().describe("Lines to show before each match (content mode)"),
  "-A": z.number().int().min(0).optional().describe("Lines to show after each match (content mode)"),
  "-C": z.number().int().min(0).optional().describe("Lines to show before and after each match (content mode)"),
  "-n": z.boolean().optional().describe("Show line numbers in content mode (default true)"),
  "-i": z.boolean().optional().describe("Case-insensitive search"),
  type: z.string().optional().describe('File type to search, e.g. "js", "ts", "py", "rust", "go", "java"'),
  head_limit: z.number().int().min(0).optional().describe("Show only the first N results (0: no limit)"),
  offset: z.number().int().min(0).optional().describe("Skip the first N results before applying head_limit (default 0)"),
  multiline: z.boolean().optional().describe("Let the pattern match across lines, with . matching newlines (default false)"),
});

type GrepArgs = z.infer<typeof parameters>;

export type GrepToolOptions = {
  /** The ripgrep binary; null to use the JavaScript engine. Default: @vscode/ripgrep's binary, or
   * the JavaScript engine when it is not installed. */
  rgPath?: string | null;
};

export function createGrepTool(options: GrepToolOptions = {}): Tool {
  let engine: Promise<GrepEngine> | undefined;
  const engineOf = () => {
    if (options.rgPath === null) return javascript();
    if (options.rgPath !== undefined) return ripgrep(options.rgPath);
    engine ??= findRipgrep().then((rgPath) => (rgPath ? ripgrep(rgPath) : javascript()));
    return engine;
  };
  return defineTool({
    name: "Grep",
    readOnly: true,
    description,
    parameters,
    async execute(args, { cwd, signal, denied }) {
      return grep(await engineOf(), args, cwd, signal, denied && ((file) => denied("Grep", file)));
    },
  });
}

export const grepTool = createGrepTool();

// The engines are imported with the first search: a run that never greps starts sooner without them.
const javascript = async (): Promise<GrepEngine> => (await import("./js.ts")).javascriptEngine;
const ripgrep = async (rgPath: string): Promise<GrepEngine> => (await import("./rg.ts")).ripgrepEngine(rgPath);

/** @vscode/ripgrep's binary, if the package and its platform binary are installed. */
export async function findRipgrep(): Promise<string | undefined> {
  try {
    const { rgPath } = await import("@vscode/ripgrep");
    await fs.access(rgPath, fs.constants.X_OK);
    return rgPath;
  } catch {
    return undefined;
  }
}

async function grep(engine: GrepEngine, args: GrepArgs, cwd: string, signal: AbortSignal, skipFile: ((file: string) => boolean) | undefined): Promise<ToolOutput> {
  const root = resolvePath(cwd, args.path ?? ".");
  const shownRoot = displayPath(cwd, root);
  let rootIsFile: boolean;
  try {
    const stat = await fs.stat(root);
    const special = specialFileProblem(stat, shownRoot);
    if (special) return { content: special, isError: true };
    rootIsFile = stat.isFile();
  } catch (error) {
    if (errorCode(error) === "ENOENT") return { content: `Path does not exist: ${shownRoot}.`, isError: true };
    return { content: `Cannot search ${shownRoot}: ${errorText(error)}`, isError: true };
  }
  const query: GrepQuery = {
    cwd,
    root,
    rootIsFile,
    pattern: args.pattern,
    ignoreCase: args["-i"] === true,
    multiline: args.multiline === true,
    globs: args.glob ? splitGlobs(args.glob) : [],
    ...(args.type !== undefined && { type: args.type }),
    ...(skipFile && { skipFile }),
    signal,
  };
  const offset = args.offset ?? 0;
  const limit = args.head_limit ? args.head_limit : undefined;
  const noMatches = { content: `No matches found for ${JSON.stringify(args.pattern)} in ${shownRoot}.` };
  const mode = args.output_mode ?? "files_with_matches";

  if (mode === "content") {
    const before = args["-B"] ?? args["-C"] ?? 0;
    const after = args["-A"] ?? args["-C"] ?? 0;
    const found = await engine.content({ ...query, numbered: args["-n"] !== false, before, after, skip: offset, take: limit, charBudget: OUTPUT_BUDGET });
    if ("error" in found) return { content: found.error, isError: true };
    const lines = trimSeparators(found.lines);
    if (lines.length === 0) return offset > 0 && !found.more ? { content: `No results at offset ${offset}: there are fewer result lines than that.` } : noMatches;
    const next = offset + found.lines.length;
    let note = "";
    if (found.cut === "limit") note = `(More results follow. Call Grep with offset ${next} to see them.)`;
    if (found.cut === "budget") {
      note = `(Results cut short to fit the output limit; there are more matches. Narrow the search with path, glob, type or a more specific pattern, or call Grep with offset ${next} to continue.)`;
    }
    return { content: note ? `${lines.join("\n")}\n\n${note}` : lines.join("\n") };
  }

  if (mode === "count") {
    const counts = await engine.counts(query);
    if ("error" in counts) return { content: counts.error, isError: true };
    if (counts.length === 0) return noMatches;
    const total = counts.reduce((sum, c) => sum + c.count, 0);
    const unit = query.multiline ? (total === 1 ? "match" : "matches") : total === 1 ? "matching line" : "matching lines";
    const page = pageOf(counts.map((c) => `${displayPath(cwd, c.file)}:${c.count}`), offset, limit);
    const summary = `Found ${total} ${unit} in ${counts.length} file${counts.length === 1 ? "" : "s"}${range(page, counts.length, offset)}.`;
    return { content: [page.shown.join("\n"), summary, pagingNote(page, counts.length, "counts")].filter(Boolean).join("\n\n") };
  }

  const files = await engine.files(query);
  if ("error" in files) return { content: files.error, isError: true };
  if (files.length === 0) return noMatches;
  const sorted = await newestFirst(files);
  const page = pageOf(sorted.map((file) => displayPath(cwd, file)), offset, limit);
  const header = `Found ${sorted.length} file${sorted.length === 1 ? "" : "s"}${range(page, sorted.length, offset)}`;
  return { content: [[header, ...page.shown].join("\n"), pagingNote(page, sorted.length, "files")].filter(Boolean).join("\n\n") };
}

/** Globs as Claude Code splits them: on whitespace, and on commas outside braces. */
export function splitGlobs(glob: string): string[] {
  const globs: string[] = [];
  for (const part of glob.split(/\s+/).filter(Boolean)) {
    if (part.includes("{")) globs.push(part);
    else globs.push(...part.split(",").filter(Boolean));
  }
  return globs;
}

type Page = { shown: string[]; next?: number; capped: boolean };

/** The entries from `offset`: at most `limit` (or GREP_MAX_ENTRIES) and what fits the output. */
function pageOf(entries: readonly string[], offset: number, limit: number | undefined): Page {
  const max = limit ?? GREP_MAX_ENTRIES;
  const shown: string[] = [];
  let chars = 0;
  for (let i = offset; i < entries.length && shown.length < max; i++) {
    if (chars + entries[i].length + 1 > OUTPUT_BUDGET && shown.length > 0) break;
    shown.push(entries[i]);
    chars += entries[i].length + 1;
  }
  const end = offset + shown.length;
  return { shown, capped: limit === undefined || shown.length < limit, ...(end < entries.length && { next: end }) };
}

function range(page: Page, total: number, offset: number): string {
  if (page.shown.length === total) return "";
  if (page.shown.length === 0) return ` (none at offset ${offset})`;
  if (offset === 0) return ` (showing the first ${page.shown.length})`;
  return ` (showing ${offset + 1}-${offset + page.shown.length})`;
}

function pagingNote(page: Page, total: number, what: string): string {
  if (page.next === undefined) return "";
  const left = `${total - page.next} more ${what} not shown`;
  const next = `call Grep with offset ${page.next} to see the next ones`;
  return page.capped ? `(${left}: results are capped. Narrow the search with path, glob, type or a more specific pattern, or ${next}.)` : `(${left}; ${next}.)`;
}

function trimSeparators(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start] === "--") start++;
  while (end > start && lines[end - 1] === "--") end--;
  return start === 0 && end === lines.length ? lines : lines.slice(start, end);
}
