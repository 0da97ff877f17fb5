import fs from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import { displayPath, errorCode, errorText, resolvePath } from "./paths.ts";

const SNIPPET_CONTEXT = 3;
const SNIPPET_MAX_LINES = 40;

const description = `Performs an exact string replacement in a file.

Usage:
- Read the file first, so that old_string is copied from its current content.
- old_string must match the file exactly, including whitespace and indentation. Read shows each line as a line number, a tab, then the line: copy only what follows the tab, never the number.
- The edit fails when old_string is not in the file, or when it occurs more than once and replace_all is not set. Make old_string unique by including a few surrounding lines, or set replace_all to change every occurrence (useful for renaming a variable).
- new_string must differ from old_string.
- An empty old_string creates the file with new_string as its content, if the file does not exist yet or is empty.
- Prefer Edit over Write for changes to existing files; it only sends the part that changes.`;

export const editTool = defineTool({
  name: "Edit",
  description,
  parameters: z.strictObject({
    file_path: z.string().min(1).describe("The path of the file to modify, absolute or relative to the working directory"),
    old_string: z.string().describe("The exact text to replace"),
    new_string: z.string().describe("The text to replace it with (must be different from old_string)"),
    replace_all: z.boolean().optional().describe("Replace every occurrence of old_string (default false)"),
  }),
  async execute({ file_path, old_string, new_string, replace_all = false }, { cwd }) {
    const target = resolvePath(cwd, file_path);
    const shown = displayPath(cwd, target);
    if (old_string === new_string) {
      return { content: "old_string and new_string are identical, so the edit would change nothing. Put the replacement text in new_string.", isError: true };
    }
    let original: string;
    try {
      original = await fs.readFile(target, "utf8");
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT" && old_string === "") return createFile(target, shown, new_string);
      if (code === "ENOENT") return { content: `File does not exist: ${shown}. Check the path, or use Write to create a new file.`, isError: true };
      if (code === "EISDIR") return { content: `${shown} is a directory; give the path of a file to edit.`, isError: true };
      return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
    }
    if (old_string === "") {
      if (original !== "") {
        return {
          content: `old_string is empty, but ${shown} already has content. Give the exact text to replace as old_string, or use Write to replace the whole file.`,
          isError: true,
        };
      }
      return writeEdit(target, shown, new_string, `Wrote ${shown}.`);
    }

    let search = old_string;
    let replacement = new_string;
    let found = occurrences(original, search);
    if (found.length === 0 && original.includes("\r\n") && search.includes("\n") && !search.includes("\r\n")) {
      // The file has Windows line endings; the model writes "\n".
      search = search.replaceAll("\n", "\r\n");
      replacement = replacement.replaceAll("\n", "\r\n");
      found = occurrences(original, search);
    }
    if (found.length === 0) {
      return {
        content: `old_string was not found in ${shown}. It must match the file exactly, including whitespace and indentation, without Read's line numbers. Read the file again and copy the exact text.`,
        isError: true,
      };
    }
    if (found.length > 1 && !replace_all) {
      return {
        content: `old_string occurs ${found.length} times in ${shown}. Include more surrounding lines to make it unique, or set replace_all to true to change every occurrence.`,
        isError: true,
      };
    }
    let updated = "";
    let from = 0;
    for (const index of found) {
      updated += original.slice(from, index) + replacement;
      from = index + search.length;
    }
    updated += original.slice(from);
    const summary = `Edited ${shown}: replaced ${found.length} occurrence${found.length === 1 ? "" : "s"}.`;
    return writeEdit(target, shown, updated, `${summary} The changed region now reads:\n${snippet(updated, found[0], replacement.length)}`);
  },
});

function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) found.push(index);
  return found;
}

async function createFile(target: string, shown: string, content: string) {
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, content, { encoding: "utf8", flag: "wx" });
  } catch (error) {
    return { content: `Cannot create ${shown}: ${errorText(error)}`, isError: true };
  }
  return { content: `Created ${shown}.` };
}

async function writeEdit(target: string, shown: string, updated: string, report: string) {
  try {
    await fs.writeFile(target, updated, "utf8");
  } catch (error) {
    return { content: `Cannot write ${shown}: ${errorText(error)}`, isError: true };
  }
  return { content: report };
}

/** Numbered lines around [at, at + length) of `text`, in Read's format. */
function snippet(text: string, at: number, length: number): string {
  const lines = text.split("\n");
  const firstChanged = lineIndexAt(text, at);
  const lastChanged = lineIndexAt(text, Math.max(at, at + length - 1));
  const start = Math.max(0, firstChanged - SNIPPET_CONTEXT);
  const end = Math.min(lines.length, lastChanged + SNIPPET_CONTEXT + 1, start + SNIPPET_MAX_LINES);
  const out: string[] = [];
  for (let i = start; i < end; i++) out.push(`${String(i + 1).padStart(6, " ")}\t${lines[i].replace(/\r$/, "")}`);
  return out.join("\n");
}

function lineIndexAt(text: string, offset: number): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1 && index < offset; index = text.indexOf("\n", index + 1)) count++;
  return count;
}
