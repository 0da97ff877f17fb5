// The steers sent from this page that the conversation does not show yet: a steer reaches the
// model at its next step (after the tool calls under way), and until then the page says it was
// sent. Each goes once the state shows it (a user message marked steer, newer than the steer, that
// holds its text: a runner may deliver several in one) or the run ends (the session then sends it
// as the next prompt, or says it was not delivered).
import type { HarnessState } from "@harness/protocol";
import { h } from "./dom.ts";
import { underWay } from "./format.ts";

export type SteersView = {
  /** `text` was sent as a steer; `state`: the state it was sent in. */
  sent(text: string, state: HarnessState | undefined): void;
  update(state: HarnessState | undefined): void;
  clear(): void;
};

type Waiting = { text: string; before: Set<string> };

export function steersView(root: HTMLElement): SteersView {
  let waiting: Waiting[] = [];

  function show(): void {
    root.hidden = waiting.length === 0;
    root.replaceChildren(...waiting.map((steer) => h("li", {}, h("span", { class: "steer-note" }, "steer sent, for the model's next step: "), steer.text)));
  }

  return {
    sent(text, state) {
      waiting.push({ text, before: new Set(state?.messages.map((m) => m.id)) });
      show();
    },
    update(state) {
      if (waiting.length === 0 || !state) return;
      const before = waiting.length;
      if (!underWay(state)) waiting = [];
      const steers = state.messages.filter((m) => m.role === "user" && m.steer);
      waiting = waiting.filter((steer) => !steers.some((m) => !steer.before.has(m.id) && m.content.includes(steer.text.trim())));
      if (waiting.length !== before) show();
    },
    clear() {
      waiting = [];
      show();
    },
  };
}
