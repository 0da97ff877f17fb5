// A markdown table as a terminal shows it: its columns aligned as the delimiter row says, its rows
// ruled with box-drawing lines, the header in bold and each cell's inline markdown rendered.
import { BOLD, DIM, newInline, renderInline, type Put } from "./markdown-inline.ts";
import { columns } from "./render.ts";

type Align = "left" | "center" | "right";

/** The cells of a table row: between its pipes, trimmed (an escaped pipe, `\|`, is in a cell). */
function cells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

const DELIMITER = /^:?-+:?$/;

/** Whether `lines` are a table: a header row, then a delimiter row with as many cells. */
export function isTable(lines: readonly string[]): boolean {
  if (lines.length < 2) return false;
  const delimiters = cells(lines[1]);
  return delimiters.length === cells(lines[0]).length && delimiters.every((cell) => DELIMITER.test(cell));
}

type Cell = { runs: [text: string, style: string][]; width: number };

function renderCell(text: string, base: string): Cell {
  const runs: Cell["runs"] = [];
  renderInline(text, 0, true, newInline(), base, (t, style) => runs.push([t, style]));
  const width = runs.reduce((sum, [t]) => sum + Array.from(t).reduce((w, char) => w + columns(char), 0), 0);
  return { runs, width };
}

/** Puts the table `lines` (isTable's), each row a line ending in "\n". Rows with fewer cells than
 * the header get empty ones; cells past the header's are dropped. */
export function putTable(lines: readonly string[], put: Put): void {
  const aligns: Align[] = cells(lines[1]).map((cell) => (cell.endsWith(":") ? (cell.startsWith(":") ? "center" : "right") : "left"));
  const rows = [lines[0], ...lines.slice(2)].map((line, r) => {
    const texts = cells(line);
    return aligns.map((_, c) => renderCell(texts[c] ?? "", r === 0 ? BOLD : ""));
  });
  const widths = aligns.map((_, c) => Math.max(1, ...rows.map((row) => row[c].width)));
  const rule = (left: string, middle: string, right: string) => {
    put(`${left}${widths.map((width) => "─".repeat(width + 2)).join(middle)}${right}`, DIM);
    put("\n", "");
  };
  const row = (cellsOfRow: Cell[]) => {
    cellsOfRow.forEach((cell, c) => {
      const room = widths[c] - cell.width;
      const before = aligns[c] === "right" ? room : aligns[c] === "center" ? Math.floor(room / 2) : 0;
      put("│", DIM);
      put(" ".repeat(before + 1), "");
      for (const [text, style] of cell.runs) put(text, style);
      put(" ".repeat(room - before + 1), "");
    });
    put("│", DIM);
    put("\n", "");
  };
  rule("┌", "┬", "┐");
  row(rows[0]);
  rule("├", "┼", "┤");
  rows.slice(1).forEach(row);
  rule("└", "┴", "┘");
}
