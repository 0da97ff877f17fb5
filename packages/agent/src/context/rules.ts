// Rule files: the Markdown files of a `.claude/rules` directory (the user's, under ~/.claude, and
// the project's), found at any depth, as Claude Code reads them. A rule without `paths` in its
// frontmatter is memory like a CLAUDE.md and goes out with the first request; one with `paths`
// (a glob or a list of them, relative to the project's root) joins the conversation the first
// time the agent works on a file they match.
import path from "node:path";
import { isMissingError, readConfigDir, statConfig } from "../config/files.ts";
import { parseFrontmatter } from "../frontmatter.ts";
import { realPathOf } from "../files/real-paths.ts";
import { claim, withImports, type MemoryReader } from "./read-memory.ts";
import type { ContextDiagnostic, MemoryFile, MemoryScope } from "./types.ts";

/** At most this many rule files are read from one directory; the rest are reported. */
export const MAX_RULE_FILES = 200;
/** Subdirectories deeper than this are not searched. */
const MAX_RULE_DEPTH = 8;

/** One rule file, its frontmatter taken off. `paths`: the globs that bring it in; none when it
 * always applies. */
export type RuleFile = { path: string; scope: MemoryScope; content: string; paths?: string[] };

/** The rule files under `dir` (usually `<root>/.claude/rules`), in the order of their paths, so the
 * same files always give the same prompt. Each file is claimed in `reader` (a rule a CLAUDE.md
 * also imports is sent once). A missing directory is no rules; unreadable files and bad
 * frontmatter are diagnostics in `reader`. Never rejects. */
export async function readRules(reader: MemoryReader, dir: string, scope: MemoryScope): Promise<RuleFile[]> {
  const files = await ruleFilesUnder(dir, reader.diagnostics);
  const reads = files.map((file) => ({ file, pending: claim(reader, file) }));
  const rules: RuleFile[] = [];
  for (const { file, pending } of reads) {
    const read = await pending;
    if (!read || read.kind === "missing") continue;
    if (read.kind === "unusable") {
      reader.diagnostics.push({ file, message: read.message });
      continue;
    }
    const rule = ruleOf(file, scope, read.text, reader.diagnostics);
    if (rule) rules.push(rule);
  }
  return rules;
}

/** `rule` as it goes to the model: the rule (with its `paths` as `globs`), then the files its
 * `@path` imports bring in. */
export async function ruleMemory(reader: MemoryReader, rule: RuleFile): Promise<MemoryFile[]> {
  const files = await withImports(reader, rule.path, rule.scope, { kind: "ok", text: rule.content });
  const own = files[0];
  if (rule.paths && own && own.path === rule.path && own.importedFrom === undefined) files[0] = { ...own, globs: rule.paths };
  return files;
}

/** Whether `rule` applies to `target`, a path relative to the project's root with `/` separators. */
export function ruleMatches(rule: RuleFile, target: string): boolean {
  return rule.paths !== undefined && rule.paths.some((glob) => path.posix.matchesGlob(target, glob));
}

function ruleOf(file: string, scope: MemoryScope, text: string, diagnostics: ContextDiagnostic[]): RuleFile | undefined {
  const front = parseFrontmatter(text);
  if (!front.ok) {
    diagnostics.push({ file, message: `${front.error}; the rule is not loaded.` });
    return undefined;
  }
  if (!front.body.trim()) return undefined;
  const paths = front.data.paths;
  if (paths === undefined || paths === null) return { path: file, scope, content: front.body };
  const globs = typeof paths === "string" ? [paths] : paths;
  if (!Array.isArray(globs) || globs.length === 0 || !globs.every((glob) => typeof glob === "string" && glob.trim() !== "")) {
    diagnostics.push({ file, key: "paths", message: "`paths` must be a glob or a list of globs (such as \"src/**/*.ts\"); the rule is not loaded." });
    return undefined;
  }
  return { path: file, scope, content: front.body, paths: globs.map((glob) => normalGlob(glob.trim())) };
}

/** `./src/**` → `src/**`: globs are relative to the project's root either way. */
function normalGlob(glob: string): string {
  return glob.replace(/^(\.\/)+/, "");
}

/** The `.md` files under `dir`, sorted, following links (each directory once, however it is reached).
 * Read through config/files.ts, as every run does again: most projects have no rules directory,
 * which one synchronous stat then tells, without a failed readdir's error. */
async function ruleFilesUnder(dir: string, diagnostics: ContextDiagnostic[]): Promise<string[]> {
  const found: string[] = [];
  const visited = new Set<string>();
  let reported = false;
  const walk = async (current: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readConfigDir(current);
    } catch (error) {
      if (!isMissingError(error)) diagnostics.push({ file: current, message: `the rules directory cannot be read: ${(error as Error).message}` });
      return;
    }
    // Resolved only once it exists: most projects have no rules directory.
    const real = realPathOf(current);
    if (visited.has(real)) return;
    visited.add(real);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const full = path.join(current, entry.name);
      const kind = entry.isSymbolicLink() ? await kindOf(full) : entry.isDirectory() ? "dir" : entry.isFile() ? "file" : undefined;
      if (kind === "dir" && depth < MAX_RULE_DEPTH) await walk(full, depth + 1);
      else if (kind === "file" && entry.name.endsWith(".md")) {
        if (found.length < MAX_RULE_FILES) found.push(full);
        else if (!reported) {
          reported = true;
          diagnostics.push({ file: dir, message: `more than ${MAX_RULE_FILES} rule files; those after ${found.at(-1)} are not loaded.` });
        }
      }
    }
  };
  await walk(dir, 0);
  return found;
}

async function kindOf(file: string): Promise<"dir" | "file" | undefined> {
  try {
    const s = await statConfig(file);
    return s.isDirectory() ? "dir" : s.isFile() ? "file" : undefined;
  } catch {
    // A dangling link: nothing to load.
    return undefined;
  }
}
