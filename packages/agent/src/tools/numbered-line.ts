/** One line as Read shows it, and as Edit's snippets and the files given back after a compaction
 * show it too: its number (from 1) right-aligned in six columns, a tab, then the text. The model
 * learns from Read that the number is not part of the line. */
export function numberedLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6, " ")}\t${text}`;
}
