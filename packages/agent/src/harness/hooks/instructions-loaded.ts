// InstructionsLoaded hooks: told of each memory file as it joins the conversation, at the start,
// after a compaction, and as the tools work below the working directory, as in Claude Code.
import path from "node:path";
import type { MemoryFile } from "../../context/types.ts";
import type { InstructionsLoadedInput } from "../../hooks/types.ts";
import type { HookFields, HookHost } from "./hooks.ts";

/** Why a file joined, when nothing about the file itself says more (an import, a rule's paths). */
export type LoadMoment = { reason: "session_start" | "compact" } | { reason: "nested_traversal"; trigger: string };

/** Auto memory's MEMORY.md has no type among the hooks' (Claude Code names only these four): the
 * hooks are not told of it. */
const MEMORY_TYPES: Readonly<Record<Exclude<MemoryFile["scope"], "auto">, InstructionsLoadedInput["memory_type"]>> = {
  user: "User",
  project: "Project",
  parent: "Project",
  local: "Local",
};

/** What the hooks are told of `file`: an import is "include" (naming the file that imports it), a
 * rule its `paths` brought in "path_glob_match" (with them), others `moment`'s reason. An AGENTS.md
 * read as such (not imported, nor through a CLAUDE.md linked to it) is not told of, as Claude Code
 * does not fire the event for it. */
export function instructionsLoadedFields(file: MemoryFile, moment: LoadMoment): HookFields<"InstructionsLoaded"> | undefined {
  if (file.importedFrom === undefined && path.basename(file.path) === "AGENTS.md") return undefined;
  if (file.scope === "auto") return undefined;
  const trigger = moment.reason === "nested_traversal" ? { trigger_file_path: moment.trigger } : {};
  const base = { file_path: file.path, memory_type: MEMORY_TYPES[file.scope] };
  if (file.importedFrom !== undefined) return { ...base, load_reason: "include", parent_file_path: file.importedFrom, ...trigger };
  if (file.globs !== undefined) return { ...base, load_reason: "path_glob_match", globs: file.globs, ...trigger };
  return { ...base, load_reason: moment.reason, ...trigger };
}

/** Runs the InstructionsLoaded hooks of `files`, one file after the other, in their order. Nothing
 * waits for them (they only watch): give the promise to what the run awaits at its end. Never
 * rejects. */
export async function instructionsLoaded(hooks: HookHost, files: readonly MemoryFile[], moment: LoadMoment, signal: AbortSignal): Promise<void> {
  if (!hooks.has("InstructionsLoaded")) return;
  for (const file of files) {
    const fields = instructionsLoadedFields(file, moment);
    if (fields) await hooks.run("InstructionsLoaded", fields, signal);
  }
}
