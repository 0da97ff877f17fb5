// The string replacement behind Edit and MultiEdit, as a pure function of the file's text.
import { numberedLine } from "./numbered-line.ts";

export type EditSpec = { old_string: string; new_string: string; replace_all?: boolean };

export type AppliedEdit =
  | { ok: true; content: string; count: number; at: number; replacementLength: number }
  | { ok: false; error: string };

const SNIPPET_CONTEXT = 3;
const SNIPPET_MAX_LINES = 40;

export const IDENTICAL_STRINGS =
  "old_string and new_string are identical, so the edit would change nothing. Put the replacement text in new_string.";

/** Applies one edit to `original` (the text of the file shown to the model as `shown`). */
export function applyEdit(original: string, edit: EditSpec, shown: string): AppliedEdit {
  const { old_string, new_string, replace_all = false } = edit;
  if (old_string === new_string) return { ok: false, error: IDENTICAL_STRINGS };
  if (old_string === "") {
    if (original !== "") {
      return {
        ok: false,
        error: `old_string is empty, but ${shown} already has content. Give the exact text to replace as old_string, or use Write to replace the whole file.`,
      };
    }
    return { ok: true, content: new_string, count: 1, at: 0, replacementLength: new_string.length };
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
      ok: false,
      error: `old_string was not found in ${shown}. It must match the file exactly, including whitespace and indentation, without Read's line numbers. Read the file again and copy the exact text.`,
    };
  }
  if (found.length > 1 && !replace_all) {
    return {
      ok: false,
      error: `old_string occurs ${found.length} times in ${shown}. Include more surrounding lines to make it unique, or set replace_all to true to change every occurrence.`,
    };
  }
  // In a file whose every line ends in "\r\n", new lines the model writes as "\n" get the same end.
  if (replacement.includes("\n") && endsLinesWithCrlf(original)) replacement = replacement.replace(/(?<!\r)\n/g, "\r\n");
  let content = "";
  let from = 0;
  for (const index of found) {
    content += original.slice(from, index) + replacement;
    from = index + search.length;
  }
  content += original.slice(from);
  return { ok: true, content, count: found.length, at: found[0], replacementLength: replacement.length };
}

function endsLinesWithCrlf(text: string): boolean {
  return text.includes("\r\n") && !/(?<!\r)\n/.test(text);
}

function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) found.push(index);
  return found;
}

/** Numbered lines around [at, at + length) of `text`, in Read's format. */
export function snippet(text: string, at: number, length: number): string {
  const lines = text.split("\n");
  const firstChanged = lineIndexAt(text, at);
  const lastChanged = lineIndexAt(text, Math.max(at, at + length - 1));
  const start = Math.max(0, firstChanged - SNIPPET_CONTEXT);
  const end = Math.min(lines.length, lastChanged + SNIPPET_CONTEXT + 1, start + SNIPPET_MAX_LINES);
  const out: string[] = [];
  for (let i = start; i < end; i++) out.push(numberedLine(i + 1, lines[i].replace(/\r$/, "")));
  return out.join("\n");
}

function lineIndexAt(text: string, offset: number): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1 && index < offset; index = text.indexOf("\n", index + 1)) count++;
  return count;
}
