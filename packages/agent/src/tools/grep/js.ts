// Grep's fallback engine, for machines without ripgrep: JavaScript regular expressions over a
// directory walk. It does not read .gitignore; it skips .git, .hg, .svn and node_modules.
import path from "node:path";
import { FILE_TYPES } from "./file-types.ts";
import { createLineCollector, type FileCount, formatLine, type GrepEngine, type GrepQuery } from "./engine.ts";
import { buildMatcher, type FileMatches, type Matcher, searchFile } from "./search.ts";
import { displayPath } from "../paths.ts";
import { walkFiles } from "./walk.ts";

const CONCURRENT_FILES = 8;

export const javascriptEngine: GrepEngine = {
  async files(query) {
    const files: string[] = [];
    const failed = await eachMatch(query, false, (file) => {
      files.push(file);
      return true;
    });
    return failed ?? files;
  },
  async counts(query) {
    const counts: FileCount[] = [];
    const failed = await eachMatch(query, false, (file, found) => {
      counts.push({ file, count: found.count });
      return true;
    });
    return failed ?? counts;
  },
  async content(query) {
    const collector = createLineCollector(query);
    const before = query.before;
    const after = query.after;
    const separated = before > 0 || after > 0;
    let printed = false;
    const failed = await eachMatch(query, true, (file, found) => {
      const lines = found.lines ?? [];
      const shown = displayPath(query.cwd, file);
      const matched = new Set(found.matchedLines);
      let next = 0; // first line index not yet printed
      let printedHere = false;
      for (const index of found.matchedLines) {
        const start = Math.max(next, index - before);
        const gap = printedHere ? start > next : printed;
        if (separated && gap && !collector.push("--")) return false;
        printedHere = true;
        const end = Math.min(lines.length - 1, index + after);
        for (let i = start; i <= end; i++) {
          if (!collector.push(formatLine(shown, query.numbered ? i + 1 : undefined, matched.has(i), lines[i]))) return false;
          printed = true;
        }
        next = Math.max(next, end + 1);
      }
      return true;
    });
    return failed ?? collector.result;
  },
};

/** Calls `onMatch` for each file with a match, in walk order, until it returns false. */
async function eachMatch(
  query: GrepQuery,
  keepLines: boolean,
  onMatch: (file: string, found: FileMatches) => boolean,
): Promise<{ error: string } | undefined> {
  const matcher = buildMatcher(query.pattern, { ignoreCase: query.ignoreCase, multiline: query.multiline });
  if ("error" in matcher) return matcher;
  const accepts = fileFilter(query);
  if ("error" in accepts) return accepts;
  const files = query.rootIsFile ? single(query.root) : walkFiles(query.root, query.signal);
  const pending: Promise<{ file: string; found: FileMatches | undefined }>[] = [];
  let stopped = false;
  const take = (result: { file: string; found: FileMatches | undefined }) => {
    if (result.found && !onMatch(result.file, result.found)) stopped = true;
  };
  for await (const file of files) {
    if (stopped || query.signal.aborted) break;
    if (!query.rootIsFile && !accepts.test(file)) continue;
    if (query.skipFile?.(file)) continue;
    pending.push(search(file, matcher, keepLines));
    if (pending.length >= CONCURRENT_FILES) take(await pending.shift()!);
  }
  while (pending.length > 0 && !stopped) take(await pending.shift()!);
  if (query.signal.aborted) return { error: "Interrupted by user" };
  return undefined;
}

async function search(file: string, matcher: Matcher, keepLines: boolean) {
  return { file, found: await searchFile(file, matcher, keepLines) };
}

async function* single(file: string): AsyncGenerator<string> {
  yield file;
}

function fileFilter(query: GrepQuery): { test(file: string): boolean } | { error: string } {
  let extensions: readonly string[] | undefined;
  if (query.type !== undefined) {
    extensions = FILE_TYPES[query.type.toLowerCase()];
    if (!extensions) return { error: `Unknown file type "${query.type}". Known types: ${Object.keys(FILE_TYPES).join(", ")}. Or use glob instead.` };
  }
  const include = query.globs.filter((g) => !g.startsWith("!"));
  const exclude = query.globs.filter((g) => g.startsWith("!")).map((g) => g.slice(1));
  const matches = (file: string, glob: string) => {
    const subject = glob.includes("/") ? path.relative(query.root, file).split(path.sep).join("/") : path.basename(file);
    return path.matchesGlob(subject, glob);
  };
  return {
    test(file) {
      if (extensions && !extensions.includes(path.extname(file).toLowerCase())) return false;
      if (include.length > 0 && !include.some((glob) => matches(file, glob))) return false;
      return !exclude.some((glob) => matches(file, glob));
    },
  };
}
