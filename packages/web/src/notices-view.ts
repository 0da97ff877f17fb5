// The session's notices that came while the page followed it (a model request tried again, a
// settings file that could not be read, …): those of earlier runs are not shown again. A new
// prompt clears them; the latest MAX_SHOWN are kept.
import type { HarnessState, Notice } from "@harness/protocol";
import { noticesAdded } from "@harness/protocol/client-side";
import { h } from "./dom.ts";

const MAX_SHOWN = 5;

export type NoticesView = {
  update(state: HarnessState | undefined): void;
  /** A new run starts: the notices shown were of the one before. */
  newRun(): void;
  /** Another session is followed (or none): its notices so far are not new. */
  clear(): void;
};

export function noticesView(root: HTMLElement): NoticesView {
  const list = h("ul", {});
  root.replaceChildren(list);
  /** The state's notices as last seen; undefined before the first state of the session. */
  let seen: readonly Notice[] | undefined;
  let shown: Notice[] = [];

  function show(): void {
    root.hidden = shown.length === 0;
    list.replaceChildren(...shown.map((notice) => h("li", { "data-level": notice.level }, notice.message)));
  }

  return {
    update(state) {
      if (!state) return;
      const now = state.notices ?? [];
      if (now === seen) return;
      const added = seen ? noticesAdded(seen, now) : [];
      seen = now;
      if (added.length === 0) return;
      shown = [...shown, ...added].slice(-MAX_SHOWN);
      show();
    },
    newRun() {
      shown = [];
      show();
    },
    clear() {
      seen = undefined;
      shown = [];
      show();
    },
  };
}
