// What a file tool's call changed, as Claude Code shows it under the call: "Updated src/app.ts with
// 2 additions and 1 removal" and the changed lines (`-` removed, `+` added, a few kept around them),
// or "Wrote 12 lines to notes.md" and the first lines of a new file. It is worked out from the call's
// input (old_string → new_string, the content written); where the Edit tool's output shows the
// changed region with line numbers, the diff takes whole lines and their numbers from it.
import { isAbsolute, relative } from "node:path";
import { diffLines, hunks, splitLines, type DiffLine } from "@harness/protocol/client-side";
import { cut, printable } from "./terminal-text.ts";

/** A row under the summary: a line of the diff (numbered where its place in the file is known), a
 * line of a file written, or a gap between parts of the file far apart. */
export type ChangeRow = { kind: "same" | "removed" | "added" | "gap"; text: string; line?: number };

export type Change = { summary: string; rows: ChangeRow[] };

export type ChangeStyle = {
  /** Columns a row may take, its number and mark included. */
  width: number;
  /** Rows of the diff shown before "… +N lines" (Infinity: all). */
  maxRows: number;
  red(text: string): string;
  green(text: string): string;
  dim(text: string): string;
};

/** Rows of a change shown, unless every row is asked for (a chat's --verbose). */
export const CHANGE_ROWS = 20;
/** Of an edit too large to diff, the first rows shown of the lines it removed, and of those it added. */
const UNDIFFED_ROWS = CHANGE_ROWS / 2;
/** A line of Read's numbered format (the Edit tool's snippet), or of `cat -n` as Claude Code's is. */
const NUMBERED = /^ *(\d+)(?:\t|→)(.*)$/;

/** The name a call's header shows: Claude Code calls an edit an Update. */
export function changeLabel(toolName: string): string {
  return toolName === "Edit" || toolName === "MultiEdit" ? "Update" : toolName;
}

/** What the call changed, or undefined for a call of another tool or whose input is not an edit's
 * (the model may send anything), which is shown by its output as any call is. Only for a call that
 * succeeded: a failed one changed nothing. `cwd`: paths under it are shown relative to it. */
export function editChange(toolName: string, input: Record<string, unknown> | undefined, output: string, cwd?: string): Change | undefined {
  if (!input || typeof input.file_path !== "string" || !input.file_path) return undefined;
  const path = shownPath(input.file_path, cwd);
  if (toolName === "Write") return typeof input.content === "string" ? written(path, input.content, /^Overwrote |has been updated/.test(output)) : undefined;
  if (toolName === "Edit") {
    const { old_string: before, new_string: after, replace_all } = input;
    if (typeof before !== "string" || typeof after !== "string") return undefined;
    if (before === "") return written(path, after, false);
    const placed = place(output, before, after);
    const times = replace_all === true ? Number(/replaced (\d+) occurrences/.exec(output)?.[1] ?? 1) : 1;
    const lines = placed?.lines ?? diffLines(before, after);
    return { summary: updated(path, lines, times), rows: rowsOf(lines, placed?.from) };
  }
  if (toolName === "MultiEdit") {
    const edits = Array.isArray(input.edits) ? input.edits : [];
    if (edits.length === 0 || !edits.every((e) => typeof e?.old_string === "string" && typeof e?.new_string === "string")) return undefined;
    const each = (edits as { old_string: string; new_string: string }[]).map((e) => diffLines(e.old_string, e.new_string));
    const rows = each.flatMap((lines, i) => [...(i > 0 ? [GAP] : []), ...rowsOf(lines)]);
    return { summary: updated(path, each.flat(), 1), rows };
  }
  return undefined;
}

/** The change's lines for a terminal: the summary, then its rows, each cut to the width, removed
 * rows red and added ones green (the `-` and `+` say the same without colour). */
export function formatChange(change: Change, style: ChangeStyle): string[] {
  const digits = Math.max(0, ...change.rows.map((row) => (row.line === undefined ? 0 : String(row.line).length)));
  const shown = change.rows.slice(0, style.maxRows);
  const lines = shown.map((row) => {
    if (row.kind === "gap") return style.dim(`${" ".repeat(digits)}${digits ? " " : ""}...`);
    const number = digits ? `${row.line === undefined ? "".padStart(digits) : String(row.line).padStart(digits)} ` : "";
    const mark = row.kind === "removed" ? "-" : row.kind === "added" ? "+" : " ";
    const text = `${number}${mark}  ${printable(row.text.replace(/\t/g, "  "))}`;
    const fitted = cut(text, style.width);
    return row.kind === "removed" ? style.red(fitted) : row.kind === "added" ? style.green(fitted) : style.dim(fitted);
  });
  if (shown.length < change.rows.length) lines.push(style.dim(`… +${change.rows.length - shown.length} lines`));
  return [printable(change.summary), ...lines];
}

const GAP: ChangeRow = { kind: "gap", text: "" };

/** The rows of a diff's hunks, numbered from line `from` of the file when its place is known. Of
 * the lines of a part too large to diff, only the first UNDIFFED_ROWS removed and added are shown. */
function rowsOf(lines: readonly DiffLine[], from?: number): ChangeRow[] {
  const at = (n: number) => (from === undefined ? undefined : from + n - 1);
  return hunks(lines).flatMap((hunk, i) => {
    const rows: ChangeRow[] = i > 0 ? [GAP] : [];
    let run = 0;
    hunk.forEach((line, k) => {
      run = line.undiffed && hunk[k - 1]?.undiffed && hunk[k - 1].kind === line.kind ? run + 1 : 0;
      if (run < UNDIFFED_ROWS) rows.push({ kind: line.kind, text: line.text, line: at(line.kind === "removed" ? line.oldLine : line.newLine) });
      else if (run === UNDIFFED_ROWS) rows.push(GAP);
    });
    return rows;
  });
}

function updated(path: string, lines: readonly DiffLine[], times: number): string {
  const added = lines.filter((line) => line.kind === "added").length * times;
  const removed = lines.filter((line) => line.kind === "removed").length * times;
  const where = times > 1 ? ` in ${times} places` : "";
  // Not diffed, the lines are only known to be within what was replaced: counted as additions and
  // removals, they would be far more than changed.
  if (lines.some((line) => line.undiffed)) return `Replaced ${count(removed, "line")} with ${count(added, "line")} in ${path}${where}`;
  const parts = [added ? count(added, "addition") : "", removed ? count(removed, "removal") : ""].filter(Boolean);
  return parts.length ? `Updated ${path} with ${parts.join(" and ")}${where}` : `Updated ${path}`;
}

/** A file written whole: a new one's first lines; of one overwritten, only how long it is now. */
function written(path: string, content: string, overwrote: boolean): Change {
  const lines = splitLines(content);
  const summary = `Wrote ${count(lines.length, "line")} to ${path}`;
  if (overwrote) return { summary, rows: [] };
  return { summary, rows: lines.map((text, i) => ({ kind: "same", text, line: i + 1 })) };
}

/** The edit placed in the file, from the numbered region the tool's output shows after it: the
 * region as it was (new_string put back to old_string) against the region now, whole lines. */
function place(output: string, before: string, after: string): { lines: DiffLine[]; from: number } | undefined {
  const region = numberedRegion(output);
  const now = after.replace(/\r\n?/g, "\n");
  if (!region || now === "") return undefined;
  const text = region.lines.join("\n");
  // The region starts a few lines before the change: where the region has those lines, the change
  // is the occurrence on its fourth line, not one in the lines before.
  const starts: number[] = [];
  for (let i = text.indexOf(now); i !== -1; i = text.indexOf(now, i + 1)) starts.push(i);
  const lineOf = (offset: number) => text.slice(0, offset).split("\n").length - 1;
  const at = starts.find((offset) => region.from > 1 && lineOf(offset) === 3) ?? starts[0];
  if (at === undefined) return undefined;
  const was = text.slice(0, at) + before.replace(/\r\n?/g, "\n") + text.slice(at + now.length);
  return { lines: diffLines(was, text), from: region.from };
}

/** The first run of consecutively numbered lines in `output`. */
function numberedRegion(output: string): { from: number; lines: string[] } | undefined {
  const all = output.split(/\r?\n/);
  const first = all.findIndex((line) => NUMBERED.test(line));
  if (first === -1) return undefined;
  const from = Number(NUMBERED.exec(all[first])![1]);
  const lines: string[] = [];
  for (let i = first; i < all.length; i++) {
    const match = NUMBERED.exec(all[i]);
    if (!match || Number(match[1]) !== from + lines.length) break;
    lines.push(match[2]);
  }
  return { from, lines };
}

function count(n: number, noun: string): string {
  return `${n.toLocaleString("en-US")} ${noun}${n === 1 ? "" : "s"}`;
}

function shownPath(path: string, cwd: string | undefined): string {
  if (cwd === undefined || !isAbsolute(path)) return path;
  const rel = relative(cwd, path);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}
