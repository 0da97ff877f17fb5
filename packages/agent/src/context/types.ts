/** Where a memory file comes from, in Claude Code's terms. "parent" is a directory above the
 * project root (a monorepo root, say); "local" is a CLAUDE.local.md (personal, not checked in);
 * "auto" is the MEMORY.md of the auto memory directory, which the model keeps (auto-memory.ts). */
export type MemoryScope = "user" | "project" | "parent" | "local" | "auto";

/** One memory file as it goes to the model. A file brought in by an `@path` import is its own entry,
 * placed right after the file that imports it, with that file's scope and `importedFrom` set. */
export type MemoryFile = {
  /** Absolute path. */
  path: string;
  scope: MemoryScope;
  content: string;
  /** The memory file whose `@path` import brought this one in. */
  importedFrom?: string;
  /** A rule's `paths`, when they brought it in (it is not sent from the start). */
  globs?: string[];
};

/** A problem with a user's file that did not stop the rest from loading. */
export type ContextDiagnostic = { file: string; key?: string; message: string };

export type MemoryLoad = {
  files: MemoryFile[];
  diagnostics: ContextDiagnostic[];
  /** loadMemory's answer to whether the project's memory may import files from outside it. */
  externalImportsApproved?: boolean;
};
