// The diff under an Edit, MultiEdit or Write call (edit-rows.ts): removed lines red, added green,
// monospace; past OPEN_DIFF_ROWS the rest folded in a closed <details>, past MAX_DIFF_ROWS counted.
import type { HarnessToolCall } from "@harness/protocol";
import { h } from "./dom.ts";
import { editRows, MAX_DIFF_ROWS, OPEN_DIFF_ROWS, rowText, type DiffRow } from "./edit-rows.ts";

export type EditDiffView = { element: HTMLElement; update(call: HarnessToolCall): void };

export function editDiffView(): EditDiffView {
  const element = h("div", { class: "edit-diff", hidden: true });
  let shownInput: HarnessToolCall["input"] | null = null;
  return {
    element,
    update(call) {
      // The state shares what did not change: an input already shown is the same object.
      if (call.input === shownInput) return;
      shownInput = call.input;
      const rows = editRows(call) ?? [];
      element.hidden = rows.length === 0;
      const open = element.querySelector("details")?.open ?? false;
      const kept = rows.slice(0, MAX_DIFF_ROWS);
      const folded = kept.slice(OPEN_DIFF_ROWS);
      const cut = rows.length - kept.length;
      element.replaceChildren(
        lines(kept.slice(0, OPEN_DIFF_ROWS)),
        folded.length > 0 ? h("details", { open }, h("summary", {}, `${rows.length - OPEN_DIFF_ROWS} more line${rows.length - OPEN_DIFF_ROWS === 1 ? "" : "s"}`), lines(folded), cut > 0 ? h("div", { class: "cut" }, `… ${cut} more lines not shown`) : undefined) : "",
      );
    },
  };
}

function lines(rows: readonly DiffRow[]): HTMLElement {
  return h("pre", {}, ...rows.map((row) => h("span", { class: "diff-row", "data-kind": row.kind }, rowText(row))));
}
