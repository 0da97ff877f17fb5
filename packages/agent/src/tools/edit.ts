import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { applyEdit, IDENTICAL_STRINGS, snippet } from "./edit-apply.ts";
import { editableText, readWholeFile, refuseWrite, withFileLock, writeTracked } from "./file-state.ts";
import type { ToolState } from "./state.ts";
import { displayPath, errorCode, errorText, resolvePath } from "./paths.ts";

const description = `Performs an exact string replacement in a file.

Usage:
- Read the file first: an edit of a file that was not read, or that changed on disk since it was read, is refused. Copy old_string from what Read showed.
- old_string must match the file exactly, including whitespace and indentation. Read shows each line as a line number, a tab, then the line: copy only what follows the tab, never the number.
- The edit fails when old_string is not in the file, or when it occurs more than once and replace_all is not set. Make old_string unique by including a few surrounding lines, or set replace_all to change every occurrence (useful for renaming a variable).
- new_string must differ from old_string.
- An empty old_string creates the file with new_string as its content, if the file does not exist yet or is empty.
- Prefer Edit over Write for changes to existing files; it only sends the part that changes.`;

export const editTool = defineTool({
  name: "Edit",
  description,
  parameters: z.strictObject({
    file_path: z.string().min(1).describe("The path of the file to modify, absolute or relative to the shell's current directory"),
    old_string: z.string().describe("The exact text to replace"),
    new_string: z.string().describe("The text to replace it with (must be different from old_string)"),
    replace_all: z.boolean().optional().describe("Replace every occurrence of old_string (default false)"),
  }),
  precheck: (edit, { cwd, state }) => refuseWrite(state, resolvePath(cwd, edit.file_path)),
  async execute(edit, { cwd, state }) {
    const target = resolvePath(cwd, edit.file_path);
    const shown = displayPath(cwd, target);
    if (edit.old_string === edit.new_string) return { content: IDENTICAL_STRINGS, isError: true };
    return withFileLock(state, target, async () => {
      let current: Buffer;
      try {
        current = await readWholeFile(target, shown);
      } catch (error) {
        const code = errorCode(error);
        if (code === "ENOENT" && edit.old_string === "") return createFile(state, target, shown, edit.new_string);
        if (code === "ENOENT") return { content: `File does not exist: ${shown}. Check the path, or use Write to create a new file.`, isError: true };
        if (code === "EISDIR") return { content: `${shown} is a directory; give the path of a file to edit.`, isError: true };
        return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
      }
      const refusal = await refuseWrite(state, target, current);
      if (refusal) return { content: refusal, isError: true };
      const text = editableText(current, shown);
      if (!text.ok) return { content: text.error, isError: true };
      const applied = applyEdit(text.text, edit, shown);
      if (!applied.ok) return { content: applied.error, isError: true };
      try {
        await writeTracked(state, target, text.bom + applied.content);
      } catch (error) {
        return { content: `Cannot write ${shown}: ${errorText(error)}`, isError: true };
      }
      if (edit.old_string === "") return { content: `Wrote ${shown}.` };
      const summary = `Edited ${shown}: replaced ${applied.count} occurrence${applied.count === 1 ? "" : "s"}.`;
      return { content: `${summary} The changed region now reads:\n${snippet(applied.content, applied.at, applied.replacementLength)}` };
    });
  },
});

async function createFile(state: ToolState | undefined, target: string, shown: string, content: string) {
  try {
    await writeTracked(state, target, content, true);
  } catch (error) {
    return { content: `Cannot create ${shown}: ${errorText(error)}`, isError: true };
  }
  return { content: `Created ${shown}.` };
}
