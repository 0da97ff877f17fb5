// Positions as people and editors give them (1-based lines and columns counting characters) and as
// LSP has them (0-based, columns counting UTF-16 code units).
import type { LspPosition } from "./types.ts";

/** The LSP position of 1-based `line` and `column` in `text`, or what is wrong with them. */
export function toLspPosition(text: string, line: number, column: number): LspPosition | string {
  const lines = text.split("\n");
  // A file ending with a newline has no line after it that anyone would point at.
  const count = text.endsWith("\n") ? lines.length - 1 : lines.length;
  if (line > Math.max(count, 1)) return `line ${line} is past the end of the file (${count} line${count === 1 ? "" : "s"})`;
  const chars = [...(lines[line - 1] ?? "").replace(/\r$/, "")];
  if (column > chars.length + 1) return `character ${column} is past the end of line ${line} (${chars.length} character${chars.length === 1 ? "" : "s"})`;
  return { line: line - 1, character: chars.slice(0, column - 1).join("").length };
}

/** The 1-based column of the UTF-16 offset `character` in `lineText`. */
export function toColumn(lineText: string | undefined, character: number): number {
  if (lineText === undefined) return character + 1;
  return [...lineText.slice(0, character)].length + 1;
}
