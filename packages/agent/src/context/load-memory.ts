// Memory files (CLAUDE.md and friends) loaded at the start of a run, in Claude Code's order: the
// user's own file and rules, then every directory from the top of the filesystem down to the
// working directory, the project's rules after its root's shared files. Later files are closer to
// the work and the model weighs them more.
import path from "node:path";
import { readConfigJson } from "../config/files.ts";
import { ceilingDirectories, parentBelowCeilings } from "../files/ceilings.ts";
import { isWithin, realPathOf } from "../files/real-paths.ts";
import { memoryExcluder } from "./memory-excludes.ts";
import { claim, type MemoryReader, withImports } from "./read-memory.ts";
import { readRules, ruleMemory, type RuleFile } from "./rules.ts";
import type { MemoryFile, MemoryLoad, MemoryScope } from "./types.ts";
import { userConfigDir, userConfigFile } from "../config/user-config-dir.ts";

export type LoadMemoryOptions = {
  /** The working directory. */
  cwd: string;
  /** The project's root (usually the git root); it and the directories below it are "project",
   * those above it "parent". Default: cwd. */
  projectRoot?: string;
  /** The user's home directory: `<home>/.claude/CLAUDE.md` and `@~/…` imports. */
  home: string;
  /** Directories added with the run whose memory files are read too, after all the others, as the
   * project's (CLAUDE.md, .claude/CLAUDE.md, .claude/rules) or local (CLAUDE.local.md); see
   * harness/setup/added-dirs.ts. */
  additionalDirs?: readonly string[];
  /** The settings' claudeMdExcludes: globs of memory files (rules and imports too) not to load. */
  excludes?: readonly string[];
};

/** The memory files of one directory, in the order they are sent. */
export function memoryCandidates(dir: string, scope: MemoryScope): { file: string; scope: MemoryScope }[] {
  return [
    { file: path.join(dir, "CLAUDE.md"), scope },
    { file: path.join(dir, ".claude", "CLAUDE.md"), scope },
    { file: path.join(dir, "AGENTS.md"), scope },
    { file: path.join(dir, "CLAUDE.local.md"), scope: "local" },
  ];
}

/** Whether ~/.claude.json records that this project's memory may import files from outside it
 * (Claude Code's answer to its "Allow external CLAUDE.md file imports?" question). A file that
 * cannot be read says no; the MCP configuration, read from the same file, reports its problems. */
export async function externalImportsApproved(home: string, projectRoot: string): Promise<boolean> {
  const read = await readConfigJson(userConfigFile(home));
  if (read.kind !== "ok") return false;
  const config = read.value as { projects?: Record<string, { hasClaudeMdExternalIncludesApproved?: unknown }> } | null;
  return config?.projects?.[projectRoot]?.hasClaudeMdExternalIncludesApproved === true;
}

/** Never rejects: unreadable files, bad imports and cycles come back as diagnostics. A file reached
 * twice is sent once: a CLAUDE.md that imports the AGENTS.md beside it gets AGENTS.md in its usual
 * place, not a second copy. The filesystem root itself is not searched, as in Claude Code. Rules
 * with `paths` are not in `files` but in `pathRules`, for createNestedMemory to bring in. */
export async function loadMemory(options: LoadMemoryOptions): Promise<MemoryLoad & { pathRules: RuleFile[]; excluded: string[] }> {
  const cwd = path.resolve(options.cwd);
  const projectRoot = path.resolve(options.projectRoot ?? cwd);
  const reader: MemoryReader = {
    home: options.home,
    seen: new Set(),
    diagnostics: [],
    project: { root: projectRoot, externalImportsApproved: await externalImportsApproved(options.home, projectRoot) },
  };
  const excluded = memoryExcluder(options.excludes);
  if (excluded) reader.excluded = excluded;
  const candidates = directoriesDownTo(cwd).flatMap((dir) => memoryCandidates(dir, isWithin(dir, projectRoot) ? "project" : "parent"));
  // The project's rules go where its .claude/CLAUDE.md is, before the personal CLAUDE.local.md.
  const local = candidates.findIndex((c) => c.file === path.join(projectRoot, "CLAUDE.local.md"));
  const split = local < 0 ? candidates.length : local;
  const pathRules: RuleFile[] = [];
  // In sequence, not at once: which copy of a file reached twice is sent must not depend on timing.
  const files = [
    ...(await readInOrder(reader, [{ file: path.join(userConfigDir(options.home), "CLAUDE.md"), scope: "user" }])),
    ...(await rulesNow(reader, path.join(userConfigDir(options.home), "rules"), "user", pathRules)),
    ...(await readInOrder(reader, candidates.slice(0, split))),
    ...(await rulesNow(reader, path.join(projectRoot, ".claude", "rules"), "project", pathRules)),
    ...(await readInOrder(reader, candidates.slice(split))),
  ];
  for (const dir of options.additionalDirs ?? []) {
    const [claude, dotClaude, , local] = memoryCandidates(path.resolve(dir), "project");
    files.push(...(await readInOrder(reader, [claude!, dotClaude!])));
    files.push(...(await rulesNow(reader, path.join(path.resolve(dir), ".claude", "rules"), "project", pathRules)));
    files.push(...(await readInOrder(reader, [local!])));
  }
  return { files, pathRules, diagnostics: reader.diagnostics, externalImportsApproved: reader.project!.externalImportsApproved, excluded: reader.leftOut ?? [] };
}

/** The rules under `dir` that always apply, as memory files; those with `paths` go to `later`. */
async function rulesNow(reader: MemoryReader, dir: string, scope: MemoryScope, later: RuleFile[]): Promise<MemoryFile[]> {
  const files: MemoryFile[] = [];
  for (const rule of await readRules(reader, dir, scope)) {
    if (rule.paths) later.push(rule);
    else files.push(...(await ruleMemory(reader, rule)));
  }
  return files;
}

/** Reads every candidate at once, then expands imports in candidate order, so the result order and
 * which copy of a twice-reached file wins never depend on timing. */
export async function readInOrder(reader: MemoryReader, candidates: { file: string; scope: MemoryScope }[]): Promise<MemoryFile[]> {
  const reads = candidates.map(({ file, scope }) => ({ file, scope, pending: claim(reader, path.resolve(file)) }));
  const files: MemoryFile[] = [];
  // One file under two names (CLAUDE.md a link to the AGENTS.md beside it, as is common) is sent
  // once. Only files that exist are resolved: most candidates do not.
  const loaded = new Set<string>();
  for (const { file, scope, pending } of reads) {
    if (!pending) continue;
    const read = await pending;
    if (read.kind === "ok") {
      const real = realPathOf(path.resolve(file));
      if (loaded.has(real)) continue;
      loaded.add(real);
    }
    files.push(...(await withImports(reader, path.resolve(file), scope, read)));
  }
  return files;
}

/** `/a/b/c` → [`/a`, `/a/b`, `/a/b/c`]; the root only when it is `dir` itself; none above a
 * ceiling directory (GIT_CEILING_DIRECTORIES: a server's workspaces are projects of their own). */
function directoriesDownTo(dir: string): string[] {
  const ceilings = ceilingDirectories();
  const dirs: string[] = [];
  for (let current: string | undefined = dir; current !== undefined && path.dirname(current) !== current; current = parentBelowCeilings(current, ceilings)) dirs.unshift(current);
  return dirs.length > 0 ? dirs : [dir];
}

