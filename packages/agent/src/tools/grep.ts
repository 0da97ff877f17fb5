import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "../truncate.ts";
import { FILE_TYPES } from "./file-types.ts";
import { newestFirst } from "./glob.ts";
import { buildMatcher, searchFile, type FileMatches } from "./grep-search.ts";
import { displayPath, errorCode, errorText, resolvePath } from "./paths.ts";
import { walkFiles } from "./walk.ts";

const MAX_LINE_CHARS = 2000;
const CONCURRENT_FILES = 8;

const description = `Searches file contents with a regular expression.

Usage:
- Always use Grep for content searches; do not run grep or rg through Bash.
- pattern is a JavaScript regular expression, for example "log.*Error" or "function\\s+\\w+". Escape special characters to match them literally: "interface\\{\\}" finds "interface{}".
- path is a file or directory to search, absolute or relative to the working directory (default: the working directory). .git and node_modules directories, and binary files, are skipped.
- Narrow the files with glob (for example "*.js" or "src/**/*.{ts,tsx}"; a glob without "/" matches file names anywhere, a leading "!" excludes) or with type (for example "js", "py", "rust", "go"; faster than glob for standard file types).
- output_mode: "files_with_matches" (default) lists the matching files, most recently modified first; "content" shows the matching lines as path:line:text; "count" shows how many lines match in each file.
- In content mode, "-n" shows line numbers (default true) and "-A", "-B", "-C" show lines after, before, or around each match.
- "-i" ignores case. multiline lets a pattern span lines (and "." match newlines), for example "struct \\{[\\s\\S]*?field".
- head_limit keeps only the first N results (lines, files or counts). Large results are cut: narrow the search instead of paging through it.
- For open-ended searches that need several rounds, make several Grep and Glob calls in one reply.`;

export const grepTool = defineTool({
  name: "Grep",
  description,
  parameters: z.strictObject({
    pattern: z.string().min(1).describe("The regular expression to search for in file contents"),
    path: z.string().optional().describe("File or directory to search in (default: the working directory)"),
    glob: z.string().optional().describe('Glob pattern to filter files, e.g. "*.js" or "*.{ts,tsx}"'),
    output_mode: z
      .enum(["content", "files_with_matches", "count"])
      .optional()
      .describe('"content" shows matching lines, "files_with_matches" shows file paths (default), "count" shows match counts'),
    "-i": z.boolean().optional().describe("Case-insensitive search"),
    "-n": z.boolean().optional().describe("Show line numbers in content mode (default true)"),
    "-A": z.number().int().min(0).optional().describe("Lines to show after each match (content mode)"),
    "-B": z.number().int().min(0).optional().describe("Lines to show before each match (content mode)"),
    "-C": z.number().int().min(0).optional().describe("Lines to show before and after each match (content mode)"),
    head_limit: z.number().int().positive().optional().describe("Show only the first N results"),
    multiline: z.boolean().optional().describe("Let the pattern match across lines, with . matching newlines (default false)"),
    type: z.string().optional().describe('File type to search, e.g. "js", "ts", "py", "rust", "go", "java"'),
  }),
  async execute(args, { cwd, signal }) {
    const root = resolvePath(cwd, args.path ?? ".");
    const shownRoot = displayPath(cwd, root);
    let rootIsFile: boolean;
    try {
      rootIsFile = (await fs.stat(root)).isFile();
    } catch (error) {
      if (errorCode(error) === "ENOENT") return { content: `Path does not exist: ${shownRoot}.`, isError: true };
      return { content: `Cannot search ${shownRoot}: ${errorText(error)}`, isError: true };
    }
    const matcher = buildMatcher(args.pattern, { ignoreCase: args["-i"] === true, multiline: args.multiline === true });
    if ("error" in matcher) return { content: matcher.error, isError: true };
    let extensions: readonly string[] | undefined;
    if (args.type !== undefined) {
      extensions = FILE_TYPES[args.type.toLowerCase()];
      if (!extensions) return { content: `Unknown file type "${args.type}". Known types: ${Object.keys(FILE_TYPES).join(", ")}. Or use glob instead.`, isError: true };
    }
    const accepts = fileFilter(root, args.glob, extensions);
    const mode = args.output_mode ?? "files_with_matches";
    const format = lineFormat(cwd, args);

    const matches: { file: string; found: FileMatches }[] = [];
    let content: string[] = [];
    let contentChars = 0;
    let stoppedEarly = false;
    const limit = args.head_limit;
    const files = rootIsFile ? single(root) : walkFiles(root, signal);
    const pending: Promise<{ file: string; found: FileMatches | undefined }>[] = [];
    const take = (result: { file: string; found: FileMatches | undefined }) => {
      if (!result.found) return;
      matches.push({ file: result.file, found: result.found });
      if (mode !== "content") return;
      // Content is shown in walk order, so collecting can stop once the output is full.
      if (content.length > 0 && format.separated) content.push("--");
      for (const line of format.linesOf(result.file, result.found)) {
        content.push(line);
        contentChars += line.length + 1;
      }
      if ((limit !== undefined && content.length >= limit) || contentChars > MAX_TOOL_OUTPUT_CHARS) stoppedEarly = true;
    };
    for await (const file of files) {
      if (stoppedEarly || signal.aborted) break;
      if (!rootIsFile && !accepts(file)) continue;
      pending.push(searchFile(file, matcher, mode === "content").then((found) => ({ file, found })));
      if (pending.length >= CONCURRENT_FILES) take(await pending.shift()!);
    }
    while (pending.length > 0 && !stoppedEarly) take(await pending.shift()!);
    if (signal.aborted) return { content: "Interrupted by user", isError: true };
    if (matches.length === 0) return { content: `No matches found for ${JSON.stringify(args.pattern)} in ${shownRoot}.` };

    if (mode === "files_with_matches") {
      const sorted = await newestFirst(matches.map((m) => m.file));
      const shown = limit !== undefined ? sorted.slice(0, limit) : sorted;
      const header = `Found ${sorted.length} file${sorted.length === 1 ? "" : "s"}${shown.length < sorted.length ? ` (showing the first ${shown.length})` : ""}`;
      return { content: [header, ...shown.map((file) => displayPath(cwd, file))].join("\n") };
    }
    if (mode === "count") {
      const entries = matches.map((m) => `${displayPath(cwd, m.file)}:${m.found.count}`);
      const total = matches.reduce((sum, m) => sum + m.found.count, 0);
      const shown = limit !== undefined ? entries.slice(0, limit) : entries;
      const unit = args.multiline ? "match" : "matching line";
      const summary = `Found ${total} ${unit}${total === 1 ? "" : args.multiline ? "es" : "s"} in ${matches.length} file${matches.length === 1 ? "" : "s"}${shown.length < entries.length ? ` (showing the first ${shown.length} files)` : ""}.`;
      return { content: `${shown.join("\n")}\n\n${summary}` };
    }
    if (limit !== undefined && content.length > limit) content = content.slice(0, limit);
    if (stoppedEarly && (limit === undefined || contentChars > MAX_TOOL_OUTPUT_CHARS)) {
      content.push("", "(Results cut short; there may be more matches. Narrow the search with path, glob, type or a more specific pattern.)");
    }
    return { content: content.join("\n") };
  },
});

async function* single(file: string): AsyncGenerator<string> {
  yield file;
}

function fileFilter(root: string, glob: string | undefined, extensions: readonly string[] | undefined): (file: string) => boolean {
  const negated = glob?.startsWith("!") === true;
  const pattern = negated ? glob!.slice(1) : glob;
  const byPath = pattern?.includes("/") === true;
  return (file) => {
    if (extensions && !extensions.includes(path.extname(file).toLowerCase())) return false;
    if (pattern === undefined) return true;
    const subject = byPath ? path.relative(root, file).split(path.sep).join("/") : path.basename(file);
    return path.matchesGlob(subject, pattern) !== negated;
  };
}

type GrepArgs = { "-n"?: boolean; "-A"?: number; "-B"?: number; "-C"?: number };

/** How content-mode lines are printed, ripgrep style: "path:12:text" for matches and "path-11-text"
 * for context, with "--" between separate groups when context is shown. */
function lineFormat(cwd: string, args: GrepArgs) {
  const numbered = args["-n"] !== false;
  const before = args["-B"] ?? args["-C"] ?? 0;
  const after = args["-A"] ?? args["-C"] ?? 0;
  const separated = before > 0 || after > 0;
  const linesOf = (file: string, found: FileMatches): string[] => {
    const lines = found.lines ?? [];
    const shown = displayPath(cwd, file);
    const matched = new Set(found.matchedLines);
    const out: string[] = [];
    let next = 0; // first line index not yet printed
    for (const index of found.matchedLines) {
      const start = Math.max(next, index - before);
      if (separated && out.length > 0 && start > next) out.push("--");
      const end = Math.min(lines.length - 1, index + after);
      for (let i = start; i <= end; i++) {
        const mark = matched.has(i) ? ":" : "-";
        const text = lines[i].length > MAX_LINE_CHARS ? `${lines[i].slice(0, MAX_LINE_CHARS)}… [line cut]` : lines[i];
        out.push(numbered ? `${shown}${mark}${i + 1}${mark}${text}` : `${shown}${mark}${text}`);
      }
      next = Math.max(next, end + 1);
    }
    return out;
  };
  return { linesOf, separated };
}

