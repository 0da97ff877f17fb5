// The steers on their way to the model, from every client of the session (the state's `steers`): one
// is "sending" while the session passes it to the run, "queued" once the run holds it for the
// model's next step (after the tool calls under way). Each goes once the model reads it (the
// conversation then shows it) or the run ends (the session sends it on as the next prompt, or tells
// its sender it was not delivered).
import type { HarnessState, QueuedSteer } from "@harness/protocol";
import { h } from "./dom.ts";

export type SteersView = {
  update(state: HarnessState | undefined): void;
  clear(): void;
};

const NOTES: Record<QueuedSteer["status"], string> = {
  sending: "steer sending to the run: ",
  queued: "steer queued for the model's next step: ",
};

export function steersView(root: HTMLElement): SteersView {
  let shown: readonly QueuedSteer[] = [];

  function show(steers: readonly QueuedSteer[]): void {
    // The list changes seldom; most states leave it as it was (the same array, or an equal one).
    if (steers === shown || JSON.stringify(steers) === JSON.stringify(shown)) return;
    shown = steers;
    root.hidden = steers.length === 0;
    root.replaceChildren(...steers.map((steer) => h("li", { "data-status": steer.status }, h("span", { class: "steer-note" }, NOTES[steer.status]), steer.message)));
  }

  return {
    update: (state) => show(state?.steers ?? []),
    clear: () => show([]),
  };
}
