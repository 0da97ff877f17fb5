// Memory files in subdirectories of the working directory are not loaded at the start; like Claude
// Code, they join the conversation the first time the agent works on a file in their subtree, and
// a rule with `paths` the first time it works on a file they match.
import { statConfig } from "../config/files.ts";
import path from "node:path";
import { memoryCandidates, readInOrder } from "./load-memory.ts";
import { memoryExcluder } from "./memory-excludes.ts";
import { isWithin } from "../files/real-paths.ts";
import type { MemoryReader } from "./read-memory.ts";
import { ruleMatches, ruleMemory, type RuleFile } from "./rules.ts";
import type { MemoryFile, MemoryLoad } from "./types.ts";

export type NestedMemoryOptions = {
  cwd: string;
  /** For `@~/…` imports. */
  home: string;
  /** The project, for imports that leave it (MemoryReader.project); without it none are held back. */
  project?: { root: string; externalImportsApproved: boolean };
  /** The files already in the conversation (loadMemory's, plus any restored from earlier runs);
   * they are never returned again. */
  loaded: readonly MemoryFile[];
  /** Rules with `paths` (loadMemory's pathRules), matched against paths relative to `project.root`
   * (cwd without a project). */
  pathRules?: readonly RuleFile[];
  /** The settings' claudeMdExcludes: files they match are never brought in. */
  excludes?: readonly string[];
};

export type NestedMemory = {
  /** Call with each path a tool reads, writes or searches. Returns the memory files of the
   * directories between cwd (exclusive) and that path's directory that were not in the
   * conversation yet, top-down, then the rules whose `paths` match it that were not either,
   * imports expanded; usually nothing. Safe to call concurrently: each file is returned once.
   * Never rejects. */
  touch(target: string): Promise<MemoryLoad>;
};

export function createNestedMemory(options: NestedMemoryOptions): NestedMemory {
  const cwd = path.resolve(options.cwd);
  const seen = new Set(options.loaded.map((file) => path.resolve(file.path)));
  const scanned = new Set<string>([cwd]);
  const root = path.resolve(options.project?.root ?? cwd);
  const waiting = new Set(options.pathRules ?? []);
  const excluded = memoryExcluder(options.excludes);

  return {
    async touch(target) {
      const absolute = path.resolve(cwd, target);
      const dirs = !isWithin(absolute, cwd) || absolute === cwd ? [] : directoriesBetween(cwd, (await isDirectory(absolute)) ? absolute : path.dirname(absolute)).filter((dir) => {
        if (scanned.has(dir)) return false;
        scanned.add(dir);
        return true;
      });
      const relative = path.relative(root, absolute).split(path.sep).join("/");
      const inProject = relative !== "" && !relative.startsWith("../") && relative !== ".." && !path.isAbsolute(relative);
      const rules = inProject ? [...waiting].filter((rule) => ruleMatches(rule, relative)) : [];
      for (const rule of rules) waiting.delete(rule);
      if (dirs.length === 0 && rules.length === 0) return { files: [], diagnostics: [] };
      const reader: MemoryReader = { home: options.home, seen, diagnostics: [], ...(options.project && { project: options.project }), ...(excluded && { excluded }) };
      const files = await readInOrder(reader, dirs.flatMap((dir) => memoryCandidates(dir, "project")));
      for (const rule of rules) files.push(...(await ruleMemory(reader, rule)));
      return { files, diagnostics: reader.diagnostics };
    },
  };
}

/** The directories below `top` down to `bottom` inclusive, top-down. */
function directoriesBetween(top: string, bottom: string): string[] {
  const dirs: string[] = [];
  for (let dir = bottom; dir !== top && isWithin(dir, top); dir = path.dirname(dir)) dirs.unshift(dir);
  return dirs;
}

async function isDirectory(target: string): Promise<boolean> {
  try {
    return (await statConfig(target)).isDirectory();
  } catch {
    return false;
  }
}
