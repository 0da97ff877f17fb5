import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { applyEdit, type EditSpec } from "./edit-apply.ts";
import { editableText, readWholeFile, refuseWrite, withFileLock, writeTracked } from "./file-state.ts";
import { displayPath, errorCode, errorText, resolvePath } from "./paths.ts";

const PREVIEW_CHARS = 60;

const description = `Makes several exact string replacements in one file in a single, all-or-nothing operation.

Usage:
- Same rules as Edit, for each edit: Read the file first; old_string must match exactly (whitespace included, without Read's line numbers); it must be unique unless replace_all is set; new_string must differ from old_string.
- The edits are applied in order, each to the result of the ones before it. Plan them so that an earlier edit does not change the text a later one looks for.
- If any edit fails, none is applied and the file is left as it was.
- To create a new file, give a path that does not exist and make the first edit's old_string empty; its new_string becomes the content.
- Prefer MultiEdit over several Edit calls when changing several places in the same file.`;

const editSchema = z.strictObject({
  old_string: z.string().describe("The exact text to replace"),
  new_string: z.string().describe("The text to replace it with"),
  replace_all: z.boolean().optional().describe("Replace every occurrence of old_string (default false)"),
});

export const multiEditTool = defineTool({
  name: "MultiEdit",
  description,
  parameters: z.strictObject({
    file_path: z.string().min(1).describe("The path of the file to modify, absolute or relative to the shell's current directory"),
    edits: z.array(editSchema).min(1).describe("The edits, applied in order"),
  }),
  precheck: ({ file_path }, { cwd, state }) => refuseWrite(state, resolvePath(cwd, file_path)),
  async execute({ file_path, edits }, { cwd, state }) {
    const target = resolvePath(cwd, file_path);
    const shown = displayPath(cwd, target);
    return withFileLock(state, target, async () => {
      let original = "";
      let bom = "";
      let exists = true;
      try {
        const current = await readWholeFile(target, shown);
        const refusal = await refuseWrite(state, target, current);
        if (refusal) return { content: refusal, isError: true };
        const text = editableText(current, shown);
        if (!text.ok) return { content: text.error, isError: true };
        original = text.text;
        bom = text.bom;
      } catch (error) {
        const code = errorCode(error);
        if (code === "ENOENT" && edits[0].old_string === "") exists = false;
        else if (code === "ENOENT") return { content: `File does not exist: ${shown}. Check the path, or make the first edit's old_string empty to create it.`, isError: true };
        else if (code === "EISDIR") return { content: `${shown} is a directory; give the path of a file to edit.`, isError: true };
        else return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
      }
      const applied = applyAll(original, edits, shown);
      if ("error" in applied) return { content: `${applied.error}\nNo edits were applied; ${shown} is unchanged.`, isError: true };
      try {
        await writeTracked(state, target, bom + applied.content, !exists);
      } catch (error) {
        return { content: `Cannot write ${shown}: ${errorText(error)}`, isError: true };
      }
      const lines = applied.counts.map((count, i) => `${i + 1}. ${describe(edits[i], count)}`);
      const verb = exists ? "Applied" : "Created the file with";
      return { content: `${verb} ${edits.length} edit${edits.length === 1 ? "" : "s"} to ${shown}:\n${lines.join("\n")}` };
    });
  },
});

function applyAll(original: string, edits: readonly EditSpec[], shown: string): { content: string; counts: number[] } | { error: string } {
  let content = original;
  const counts: number[] = [];
  for (let i = 0; i < edits.length; i++) {
    const edit = edits[i];
    const where = `Edit ${i + 1} of ${edits.length}`;
    if (i > 0 && edit.old_string === "") return { error: `${where}: old_string is empty. Only the first edit may have an empty old_string, to create a new file.` };
    const earlier = edits.slice(0, i).findIndex((e) => edit.old_string !== "" && e.new_string.includes(edit.old_string));
    if (earlier !== -1) {
      return {
        error: `${where}: old_string is part of the new_string of edit ${earlier + 1}, so it would change text that edit just wrote. Combine the two edits into one.`,
      };
    }
    const result = applyEdit(content, edit, shown);
    if (!result.ok) return { error: `${where}: ${result.error}` };
    content = result.content;
    counts.push(result.count);
  }
  return { content, counts };
}

function describe(edit: EditSpec, count: number): string {
  if (edit.old_string === "") return `wrote ${preview(edit.new_string)}`;
  return `replaced ${preview(edit.old_string)} with ${preview(edit.new_string)}${count > 1 ? ` (${count} occurrences)` : ""}`;
}

function preview(text: string): string {
  const flat = JSON.stringify(text);
  return flat.length > PREVIEW_CHARS ? `${flat.slice(0, PREVIEW_CHARS - 4)}…"` : flat;
}
