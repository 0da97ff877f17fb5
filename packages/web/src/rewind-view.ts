// "Rewind here" on one of the user's prompts: first a dry run (the session's state then names, in
// rewindPreview, the files a rewind would put back or remove), shown with Rewind and Keep; Rewind
// drops the prompt and what followed and puts the files back. Refused, saying why, while a run is
// under way (the server would refuse it too); when the server refuses (no checkpoint…), its reason.
import type { HarnessState, RewindPreview } from "@harness/protocol";
import { h, setText } from "./dom.ts";
import { underWay } from "./format.ts";

export type RewindActions = { rewind(messageId: string, dryRun: boolean): void };

export type RewindView = {
  button: HTMLElement;
  panel: HTMLElement;
  update(state: HarnessState): void;
  /** The server refused a rewind: shown if this view asked for one and awaits the answer. */
  refused(message: string): void;
};

type Phase = "closed" | "asked" | "refused" | "rewinding" | "failed";

export function rewindView(messageId: string, actions: RewindActions): RewindView {
  const button = h("button", { type: "button", class: "rewind", title: "Go back to before this prompt: the conversation and the files" }, "Rewind here");
  const note = h("p", { class: "rewind-note" });
  const files = h("ul", { class: "rewind-files" });
  const confirm = h("button", { type: "button", class: "rewind-confirm", hidden: true }, "Rewind");
  const keep = h("button", { type: "button", class: "rewind-keep" }, "Keep");
  const panel = h("div", { class: "rewind-panel", hidden: true }, note, files, h("div", { class: "rewind-buttons" }, confirm, keep));
  let phase: Phase = "closed";
  let state: HarnessState | undefined;
  let failure = "";

  const previewOf = (of: HarnessState | undefined) => (of?.rewindPreview?.messageId === messageId ? of.rewindPreview : undefined);

  function show(): void {
    panel.hidden = phase === "closed";
    const preview = previewOf(state);
    const ready = phase === "asked" && preview !== undefined;
    confirm.hidden = !ready;
    if (phase === "refused") setText(note, "A run is under way: wait for it to end, or cancel it (Esc), then rewind.");
    else if (phase === "failed") setText(note, `The rewind was refused: ${failure}`);
    else if (phase === "rewinding") setText(note, "Rewinding…");
    else if (phase === "asked" && !preview) setText(note, "Checking what a rewind would restore…");
    else if (ready) setText(note, preview.files.length === 0 ? "No files to put back: only the conversation goes back to before this prompt." : "Rewinding puts the conversation back to before this prompt, and these files as they were then:");
    files.replaceChildren(...(ready ? preview.files.map(fileItem) : []));
  }

  /** Asks for a dry run (`asked`) or the rewind itself (`rewinding`), unless a run is under way. */
  const rewindOn = (next: "asked" | "rewinding") => () => {
    if (underWay(state)) phase = "refused";
    else {
      phase = next;
      actions.rewind(messageId, next === "asked");
    }
    show();
  };
  button.addEventListener("click", rewindOn("asked"));
  confirm.addEventListener("click", rewindOn("rewinding"));
  keep.addEventListener("click", () => {
    phase = "closed";
    show();
  });

  return {
    button,
    panel,
    update(next) {
      const before = [phase, previewOf(state)];
      state = next;
      // Once the run is over the reason no longer holds.
      if (phase === "refused" && !underWay(state)) phase = "closed";
      // Called with each new state (every streamed delta) for every prompt: the panel is touched
      // only when what it shows changed, its phase or this prompt's preview.
      if (phase !== before[0] || previewOf(state) !== before[1]) show();
    },
    refused(message) {
      if (phase !== "asked" && phase !== "rewinding") return;
      phase = "failed";
      failure = message;
      show();
    },
  };
}

function fileItem(file: RewindPreview["files"][number]): HTMLElement {
  const lines = file.linesAdded !== undefined || file.linesRemoved !== undefined ? ` (+${file.linesAdded ?? 0} −${file.linesRemoved ?? 0})` : "";
  return h("li", { "data-action": file.action }, h("span", { class: "rewind-action" }, file.action === "delete" ? "remove" : "restore"), " ", h("code", {}, file.path), lines);
}
