// The lines a session's edits added and removed (a statusLine's cost.total_lines_added and
// total_lines_removed), counted from its finished Edit, MultiEdit and Write calls, sub-agents'
// included, as a diff of what each replaced counts them. Only what the calls' input holds is known:
// - a Write counts every line it wrote as added, over an existing file too: the file's former
//   lines were never in the state;
// - an edit with replace_all counts once: how many places it changed is not in its input.
// A call whose input is not what the tool takes (it could not have run) counts nothing.
import type { HarnessState } from "@harness/protocol";
import { changeCounts } from "@harness/protocol/client-side";

export type LinesChanged = { added: number; removed: number };

/** Beyond this many pairs of lines an edit's changed middle is counted whole, not diffed. */
const MAX_DIFF_CELLS = 250_000;

export function linesChanged(state: HarnessState | undefined): LinesChanged {
  const total: LinesChanged = { added: 0, removed: 0 };
  for (const message of state?.messages ?? []) {
    for (const call of message.toolCalls ?? []) {
      if (call.status !== "complete" || !call.input) continue;
      for (const [before, after] of replacements(call.name, call.input)) {
        const { added, removed } = changeCounts(lines(before), lines(after), MAX_DIFF_CELLS);
        total.added += added;
        total.removed += removed;
      }
    }
  }
  return total;
}

/** What a call replaced with what: [old text, new text] pairs. */
function replacements(tool: string, input: Record<string, unknown>): [string, string][] {
  if (tool === "Write") return typeof input.content === "string" ? [["", input.content]] : [];
  if (tool === "Edit") return pair(input);
  if (tool === "MultiEdit" && Array.isArray(input.edits)) return input.edits.flatMap(pair);
  return [];
}

function pair(edit: unknown): [string, string][] {
  if (typeof edit !== "object" || edit === null) return [];
  const { old_string: before, new_string: after } = edit as Record<string, unknown>;
  return typeof before === "string" && typeof after === "string" ? [[before, after]] : [];
}

/** A text's lines, as a diff sees them: a last newline ends the last line, it does not start one. */
function lines(text: string): string[] {
  if (text === "") return [];
  const all = text.split("\n");
  if (text.endsWith("\n")) all.pop();
  return all;
}
