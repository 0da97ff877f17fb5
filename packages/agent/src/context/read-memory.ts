// Reading memory files and expanding their `@path` imports. Each imported file becomes its own
// entry right after the file that imports it (as Claude Code does), not text spliced into it: the
// model sees the `@path` mention where it was written and the file's content under its own path.
import { isMissingError, readConfigFile } from "../config/files.ts";
import { existsSync } from "node:fs";
import path from "node:path";
import { isWithin, realPathOf } from "../files/real-paths.ts";
import { findImports } from "./markdown-imports.ts";
import type { ContextDiagnostic, MemoryFile, MemoryScope } from "./types.ts";
import { userConfigDir } from "../config/user-config-dir.ts";

/** Imports are followed this many hops deep (a file's own imports are hop 1). */
export const MAX_IMPORT_DEPTH = 5;
/** Larger files still load, with a diagnostic: they cost context on every request. */
export const LARGE_MEMORY_FILE_CHARS = 40_000;

export type MemoryReader = {
  home: string;
  /** The project, for imports that leave it (see importOutsideProject). Without it, none are held back. */
  project?: { root: string; externalImportsApproved: boolean };
  /** Every path already taken (loaded, or being loaded), so a file appears once per conversation. */
  seen: Set<string>;
  diagnostics: ContextDiagnostic[];
  /** The settings' claudeMdExcludes (see memory-excludes.ts): such files are never read. */
  excluded?: (file: string) => boolean;
  /** The files that exist and were left out by `excluded`, in the order they were reached. */
  leftOut?: string[];
};

type ReadResult = { kind: "ok"; text: string } | { kind: "missing" } | { kind: "unusable"; message: string };

/** Starts reading a candidate memory file. Claims the path at once, so concurrent loads never take
 * the same file twice; returns undefined when it was already taken, or is excluded. */
export function claim(reader: MemoryReader, file: string): Promise<ReadResult> | undefined {
  if (reader.seen.has(file)) return undefined;
  if (reader.excluded?.(file)) {
    // Said by /memory; most candidates do not exist, and those are not worth a word.
    if (existsSync(file)) (reader.leftOut ??= []).push(file);
    reader.seen.add(file);
    return undefined;
  }
  reader.seen.add(file);
  return readText(file);
}

/** A read candidate with its imports expanded: `[file, ...imports]`, or [] when the file is absent
 * or empty. A missing candidate is normal and reported by nobody; a missing import is a diagnostic. */
export async function withImports(reader: MemoryReader, file: string, scope: MemoryScope, read: ReadResult): Promise<MemoryFile[]> {
  if (read.kind === "missing") return [];
  if (read.kind === "unusable") {
    reader.diagnostics.push({ file, message: read.message });
    return [];
  }
  return expand(reader, { path: file, scope, content: read.text }, [file]);
}

async function expand(reader: MemoryReader, file: MemoryFile, chain: string[]): Promise<MemoryFile[]> {
  if (file.content.length > LARGE_MEMORY_FILE_CHARS) {
    reader.diagnostics.push({
      file: file.path,
      message: `This memory file is ${file.content.length} characters long (over ${LARGE_MEMORY_FILE_CHARS}); all of it is sent with every request.`,
    });
  }
  const out: MemoryFile[] = file.content.trim() ? [file] : [];
  for (const written of findImports(file.content)) {
    const target = resolveImport(written, path.dirname(file.path), reader.home);
    if (chain.includes(target)) {
      reader.diagnostics.push({ file: file.path, message: `Import @${written} is circular (${[...chain, target].join(" → ")}); it was not followed.` });
      continue;
    }
    if (chain.length > MAX_IMPORT_DEPTH) {
      reader.diagnostics.push({
        file: file.path,
        message: `Import @${written} is more than ${MAX_IMPORT_DEPTH} imports deep (${[...chain, target].join(" → ")}); it was not followed.`,
      });
      continue;
    }
    const held = importOutsideProject(reader, file, target);
    if (held) {
      reader.diagnostics.push({ file: file.path, message: `Import @${written} not loaded: ${held}` });
      continue;
    }
    const pending = claim(reader, target);
    if (!pending) continue;
    const read = await pending;
    if (read.kind === "missing") {
      // "@alice" or "@types/node" in prose is a mention, not an import: only a missing file name
      // with an extension is worth a word (a typo in "@docs/setup.md"), as Claude Code says
      // nothing of either.
      if (/\.[^/.]+$/.test(written)) reader.diagnostics.push({ file: file.path, message: `Import @${written} not found: ${target} does not exist.` });
      continue;
    }
    if (read.kind === "unusable") {
      reader.diagnostics.push({ file: file.path, message: `Import @${written} skipped: ${read.message}` });
      continue;
    }
    out.push(...(await expand(reader, { path: target, scope: file.scope, content: read.text, importedFrom: file.path }, [...chain, target])));
  }
  return out;
}

/** Why `target`, imported by a project memory file, is held back: a repository's CLAUDE.md must not
 * pull files from elsewhere on the machine (keys, other projects) into the model's context unless
 * the user said so. As in Claude Code, approval is per project in ~/.claude.json. Imports into the
 * user's own ~/.claude, and those of memory files outside the project, are not held back. */
function importOutsideProject(reader: MemoryReader, file: MemoryFile, target: string): string | undefined {
  const project = reader.project;
  if (!project || project.externalImportsApproved || file.scope !== "project") return undefined;
  // Where the file really is: a link inside the project can lead anywhere.
  const real = realPathOf(target);
  if (isWithin(real, realPathOf(project.root)) || isWithin(real, realPathOf(userConfigDir(reader.home)))) return undefined;
  const where = real === target ? `${target} is` : `${target} leads to ${real},`;
  return `${where} outside the project (${project.root}). A project's memory files import files from outside it only once that is approved: set "hasClaudeMdExternalIncludesApproved": true in this project's entry of ~/.claude.json (Claude Code asks once and records the answer there).`;
}

function resolveImport(written: string, baseDir: string, home: string): string {
  if (written.startsWith("~/")) return path.join(home, written.slice(2));
  return path.resolve(baseDir, written);
}

async function readText(file: string): Promise<ReadResult> {
  let buffer: Buffer;
  try {
    buffer = await readConfigFile(file);
  } catch (error) {
    if (isMissingError(error)) return { kind: "missing" };
    if ((error as NodeJS.ErrnoException).code === "EISDIR") return { kind: "unusable", message: `${file} is a directory, not a file.` };
    return { kind: "unusable", message: `${file} cannot be read: ${(error as Error).message}` };
  }
  if (buffer.includes(0)) return { kind: "unusable", message: `${file} is a binary file, not text.` };
  let text = buffer.toString("utf8");
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return { kind: "ok", text };
}
