// The sidebar: the user's sessions (GET /sessions), the most recently active first; a button to
// start a new one; the one open marked.
import type { SessionsApi, SessionSummary } from "@harness/client";
import { byId, h, setText } from "./dom.ts";

export type SessionsView = { refresh(): Promise<void>; mark(sessionId: string | undefined): void };

export function sessionsView(api: SessionsApi, open: (sessionId: string) => void, problem: (message: string) => void): SessionsView {
  const list = byId("sessions");
  const newButton = byId<HTMLButtonElement>("new-session");
  let current: string | undefined;
  const titles = new Map<string, string>();
  let refreshing: Promise<void> | undefined;
  let again = false;

  newButton.onclick = async () => {
    newButton.disabled = true;
    try {
      const { sessionId } = await api.create();
      open(sessionId);
      await view.refresh();
    } catch (error) {
      problem(`could not make a session: ${(error as Error).message}`);
    } finally {
      newButton.disabled = false;
    }
  };

  function item(session: SessionSummary): HTMLElement {
    const button = h(
      "button",
      { type: "button", class: "session", "data-session-id": session.sessionId, "aria-current": session.sessionId === current ? "true" : undefined },
      h("span", { class: "session-title" }, session.title || session.sessionId),
      h("span", { class: "session-meta" }, `${session.status} · ${session.messageCount} message${session.messageCount === 1 ? "" : "s"}`),
    );
    button.addEventListener("click", () => open(session.sessionId));
    return h("li", {}, button);
  }

  async function load(): Promise<void> {
    try {
      const sessions = await api.list();
      for (const session of sessions) if (session.title) titles.set(session.sessionId, session.title);
      if (current) setText(byId("session-name"), titles.get(current) ?? current);
      list.replaceChildren(...sessions.map(item));
      if (sessions.length === 0) list.replaceChildren(h("li", { class: "empty" }, "no sessions yet"));
    } catch (error) {
      problem(`could not list the sessions: ${(error as Error).message}`);
    }
  }

  const view: SessionsView = {
    // One listing at a time; a refresh asked for meanwhile runs once after it.
    async refresh() {
      if (refreshing) {
        again = true;
        return refreshing;
      }
      refreshing = (async () => {
        do {
          again = false;
          await load();
        } while (again);
      })().finally(() => (refreshing = undefined));
      return refreshing;
    },
    mark(sessionId) {
      current = sessionId;
      for (const button of list.querySelectorAll<HTMLElement>("button.session")) {
        if (button.dataset.sessionId === sessionId) button.setAttribute("aria-current", "true");
        else button.removeAttribute("aria-current");
      }
      setText(byId("session-name"), sessionId === undefined ? "no session open: start one on the left" : (titles.get(sessionId) ?? sessionId));
    },
  };
  return view;
}
