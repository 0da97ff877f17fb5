// What an Edit, MultiEdit or Write call removes and adds, worked out from its input alone (so it
// shows while the call waits for approval, as the terminal chat shows it): old_string → new_string,
// each of edits[], or a Write's content, all added. Pure: rows of text, tested without a browser.
import type { HarnessToolCall } from "@harness/protocol";
import { diffLines, hunks, splitLines, type DiffLine } from "@harness/protocol/client-side";

/** A row of the diff: a line kept around a change, removed or added, or a gap between hunks. */
export type DiffRow = { kind: "same" | "removed" | "added" | "gap"; text: string };

/** Rows shown open; the rest are folded. */
export const OPEN_DIFF_ROWS = 20;
/** Most rows kept in the page at all (a Write of a huge file): the rest are counted. */
export const MAX_DIFF_ROWS = 2_000;

/** The diff of `call`, or undefined for another tool or an input that is not an edit's (the model
 * may send anything; such a call is shown by its input and output as any other). */
export function editRows(call: Pick<HarnessToolCall, "name" | "input">): DiffRow[] | undefined {
  const input = call.input;
  if (!input || typeof input.file_path !== "string") return undefined;
  if (call.name === "Write") {
    return typeof input.content === "string" ? splitLines(input.content).map((text) => ({ kind: "added", text })) : undefined;
  }
  if (call.name === "Edit") {
    return isEdit(input) ? rowsOf(diffLines(input.old_string, input.new_string)) : undefined;
  }
  if (call.name === "MultiEdit") {
    const edits = input.edits;
    if (!Array.isArray(edits) || edits.length === 0 || !edits.every(isEdit)) return undefined;
    return edits.flatMap((edit, i) => [...(i > 0 ? [GAP] : []), ...rowsOf(diffLines(edit.old_string, edit.new_string))]);
  }
  return undefined;
}

const GAP: DiffRow = { kind: "gap", text: "" };

function isEdit(value: unknown): value is { old_string: string; new_string: string } {
  const edit = value as { old_string?: unknown; new_string?: unknown } | null;
  return typeof edit === "object" && edit !== null && typeof edit.old_string === "string" && typeof edit.new_string === "string";
}

/** The hunks (changes with three kept lines around), a gap between two. */
function rowsOf(lines: readonly DiffLine[]): DiffRow[] {
  return hunks(lines).flatMap((hunk, i) => [...(i > 0 ? [GAP] : []), ...hunk.map((line) => ({ kind: line.kind, text: line.text }))]);
}

/** The row as a unified diff's line: "-", "+" or " " before the text; "…" for a gap. */
export function rowText(row: DiffRow): string {
  if (row.kind === "gap") return "…";
  return `${row.kind === "removed" ? "-" : row.kind === "added" ? "+" : " "} ${row.text}`;
}
