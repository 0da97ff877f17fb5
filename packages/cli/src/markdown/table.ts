// A markdown table (GFM's, its rows with or without outer pipes) as a terminal shows it: its columns
// aligned as the delimiter row says, its rows ruled with box-drawing lines, the header in bold and
// each cell's inline markdown rendered.
import { BOLD, DIM, newInline, renderInline, type Put } from "./inline.ts";
import { clusters, columns, width } from "../display/terminal-text.ts";

type Align = "left" | "center" | "right";

/** The cells of a table row: between its pipes, trimmed (an escaped pipe, `\|`, is in a cell), a
 * tab in one a space (the terminal would take it to a tab stop, past the column's edge). */
function cells(line: string): string[] {
  let row = line.trim();
  if (row.startsWith("|")) row = row.slice(1);
  if (row.endsWith("|") && !row.endsWith("\\|")) row = row.slice(0, -1);
  return row.split(/(?<!\\)\|/).map((cell) => cell.replace(/\t/g, " ").trim());
}

const DELIMITER = /^:?-+:?$/;

/** Whether `lines` are a table: a header row, then a delimiter row with as many cells. */
export function isTable(lines: readonly string[]): boolean {
  if (lines.length < 2) return false;
  const delimiters = cells(lines[1]);
  return delimiters.length === cells(lines[0]).length && delimiters.every((cell) => DELIMITER.test(cell));
}

/** How far into a paragraph's first line a pipe makes it a table's header, if the line under it is
 * the delimiter row: that far the line waits (the first cell of a header is short). */
export const HEADER_REACH = 32;

/** A pipe that separates a table's cells: not an escaped one. */
export const PIPE = /(?<!\\)\|/;

/** Whether a paragraph's first line, `rest`, may be a table's header without outer pipes: it has a
 * pipe in its first HEADER_REACH characters. Undefined while they have not all come. */
export function mayBeHeader(rest: string, complete: boolean): boolean | undefined {
  if (PIPE.test(rest.slice(0, HEADER_REACH))) return true;
  return complete || rest.length >= HEADER_REACH ? false : undefined;
}

type Run = [text: string, style: string];
type Cell = { runs: Run[]; width: number };


function renderCell(text: string, base: string): Cell {
  const runs: Run[] = [];
  renderInline(text, 0, true, newInline(), base, (t, style) => runs.push([t, style]));
  return { runs, width: runs.reduce((sum, [t]) => sum + width(t), 0) };
}

/** `cell` as lines at most `max` columns wide: broken at a space where one is, else in a word. */
function wrap(cell: Cell, max: number): Cell[] {
  if (cell.width <= max) return [cell];
  const chars = cell.runs.flatMap(([text, style]) => clusters(text).map((char): Run => [char, style]));
  const lines: Run[][] = [];
  let line: Run[] = [];
  for (const char of chars) {
    if (line.length > 0 && width(line.map(([c]) => c).join("")) + columns(char[0]) > max) {
      const space = line.findLastIndex(([c]) => c === " ");
      lines.push(space > 0 ? line.slice(0, space) : line);
      line = space > 0 ? line.slice(space + 1) : [];
    }
    if (line.length > 0 || char[0] !== " ") line.push(char);
  }
  lines.push(line);
  return lines.map((runs) => {
    const merged: Run[] = [];
    for (const [c, style] of runs) {
      const last = merged.at(-1);
      if (last && last[1] === style) last[0] += c;
      else merged.push([c, style]);
    }
    return { runs: merged, width: width(runs.map(([c]) => c).join("")) };
  });
}

/** The columns' widths: as wide as their widest cells, the widest narrowed (down to 3) until the
 * table fits in `columns` of a terminal. */
function fit(natural: number[], columns: number): number[] {
  const widths = natural.slice();
  const room = columns - (3 * widths.length + 1);
  for (let total = widths.reduce((a, b) => a + b, 0); total > room; total--) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= 3) break;
    widths[widest]--;
  }
  return widths;
}

/** How a table's columns are laid out: each one's alignment and width. */
export type TableLayout = { aligns: Align[]; widths: number[] };

/** Puts the table `lines` (isTable's), each row a line ending in "\n", at most `columns` wide
 * (cells wrapped) where it can. Rows with fewer cells than the header get empty ones; cells past
 * the header's are dropped. */
export function putTable(lines: readonly string[], put: Put, columns = Infinity): void {
  putTableEnd(putTableStart(lines, put, columns), put);
}

/** Puts the table `lines` (isTable's) without its bottom rule, laid out for them: the layout the
 * rows after them (a table too long to hold whole) are put with, their cells wrapped to it. */
export function putTableStart(lines: readonly string[], put: Put, columns = Infinity): TableLayout {
  const aligns: Align[] = cells(lines[1]).map((cell) => (cell.endsWith(":") ? (cell.startsWith(":") ? "center" : "right") : "left"));
  const rows = [lines[0], ...lines.slice(2)].map((line, r) => rowCells(line, aligns.length, r === 0 ? BOLD : ""));
  const widths = fit(
    aligns.map((_, c) => Math.max(1, ...rows.map((row) => row[c].width))),
    columns,
  );
  const layout = { aligns, widths };
  rule(layout, put, "┌", "┬", "┐");
  putRow(layout, rows[0], put);
  rule(layout, put, "├", "┼", "┤");
  for (const row of rows.slice(1)) putRow(layout, row, put);
  return layout;
}

/** Puts a row of a table whose start is out. */
export function putTableRow(layout: TableLayout, line: string, put: Put): void {
  putRow(layout, rowCells(line, layout.aligns.length, ""), put);
}

/** Puts the bottom rule of a table. */
export function putTableEnd(layout: TableLayout, put: Put): void {
  rule(layout, put, "└", "┴", "┘");
}

function rowCells(line: string, count: number, base: string): Cell[] {
  const texts = cells(line);
  return Array.from({ length: count }, (_, c) => renderCell(texts[c] ?? "", base));
}

function rule({ widths }: TableLayout, put: Put, left: string, middle: string, right: string): void {
  put(`${left}${widths.map((w) => "─".repeat(w + 2)).join(middle)}${right}`, DIM);
  put("\n", "");
}

function putRow({ aligns, widths }: TableLayout, cellsOfRow: Cell[], put: Put): void {
  const wrapped = cellsOfRow.map((cell, c) => wrap(cell, widths[c]));
  const height = Math.max(...wrapped.map((cellLines) => cellLines.length));
  for (let l = 0; l < height; l++) {
    wrapped.forEach((cellLines, c) => {
      const cell = cellLines[l] ?? { runs: [], width: 0 };
      const room = widths[c] - cell.width;
      const before = aligns[c] === "right" ? room : aligns[c] === "center" ? Math.floor(room / 2) : 0;
      put("│", DIM);
      put(" ".repeat(before + 1), "");
      for (const [text, style] of cell.runs) put(text, style);
      put(" ".repeat(room - before + 1), "");
    });
    put("│", DIM);
    put("\n", "");
  }
}
