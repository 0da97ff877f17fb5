// How memory files read to the model: Claude Code's shape, a <system-reminder> with one
// "Contents of <path> (<what it is>):" section per file.
import type { MemoryFile, MemoryScope } from "./types.ts";

const LABELS: Record<MemoryScope, string> = {
  user: "user's private global instructions for all projects",
  project: "project instructions, checked into the codebase",
  parent: "project instructions from a parent directory of the project",
  local: "user's private project instructions, not checked in",
  auto: "user's auto-memory, persists across conversations",
};

const PREAMBLE =
  "Codebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.";

/** Wraps text the harness adds to the conversation, so the model can tell it from what the user wrote. */
export function systemReminder(text: string): string {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

/** The memory files as one system reminder; "" when there are none. Deterministic: the same files
 * give the same bytes, which keeps the cached prompt prefix valid. */
export function memoryReminder(files: readonly MemoryFile[]): string {
  if (files.length === 0) return "";
  const sections = files.map((file) => `Contents of ${file.path} (${LABELS[file.scope]}):\n\n${file.content.trim()}`);
  return systemReminder(
    `As you answer the user's questions, you can use the following context:\n# claudeMd\n${PREAMBLE}\n\n${sections.join("\n\n")}\n\nIMPORTANT: this context may or may not be relevant to your tasks. You should not respond to this context unless it is highly relevant to your task.`,
  );
}

/** Memory files found under a directory the agent just worked in, and rules whose `paths` match
 * the file, for the loop to append to the next tool result (see createNestedMemory); "" when
 * there are none. */
export function nestedMemoryReminder(files: readonly MemoryFile[]): string {
  if (files.length === 0) return "";
  const sections = files.map((file) => `Contents of ${file.path} (${LABELS[file.scope]}):\n\n${file.content.trim()}`);
  return systemReminder(
    `The files you are working on have instructions of their own. ${PREAMBLE}\n\n${sections.join("\n\n")}`,
  );
}
