// The sidebar: the user's sessions (GET /sessions), the most recently active first, each renamed
// or deleted from its row (session-item.ts); a button to start a new one; the one open marked.
import type { SessionsApi } from "@harness/client";
import { byId, h, setText } from "./dom.ts";
import { sessionItem, UNTITLED } from "./session-item.ts";

export type SessionsView = {
  refresh(): Promise<void>;
  mark(sessionId: string | undefined): void;
  /** The session's title as last listed or renamed; undefined for none. */
  titleOf(sessionId: string): string | undefined;
};

export type SessionsHooks = {
  open(sessionId: string): void;
  /** Session `sessionId` was deleted (the page stops following it if it is the one open). */
  removed(sessionId: string): void;
  problem(message: string): void;
};

export function sessionsView(api: SessionsApi, hooks: SessionsHooks): SessionsView {
  const { open, problem } = hooks;
  const list = byId("sessions");
  const newButton = byId<HTMLButtonElement>("new-session");
  let current: string | undefined;
  const titles = new Map<string, string>();
  /** The sessions of the last listing: one of them without a title is a new one, not yet asked anything. */
  let listed = new Set<string>();
  const label = (sessionId: string) => titles.get(sessionId) ?? (listed.has(sessionId) ? UNTITLED : sessionId);
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

  const actions = {
    open,
    async rename(sessionId: string, title: string) {
      const renamed = await api.rename(sessionId, title);
      titles.set(sessionId, renamed.title);
      if (sessionId === current) setText(byId("session-name"), renamed.title);
      // Not awaited: the row leaves its form first, and is then listed anew.
      void view.refresh();
    },
    async remove(sessionId: string) {
      await api.remove(sessionId);
      titles.delete(sessionId);
      hooks.removed(sessionId);
      await view.refresh();
    },
  };

  async function load(): Promise<void> {
    try {
      const sessions = await api.list();
      for (const session of sessions) if (session.title) titles.set(session.sessionId, session.title);
      listed = new Set(sessions.map((session) => session.sessionId));
      if (current) setText(byId("session-name"), label(current));
      // A row being renamed or asking to delete is kept as it is.
      const busy = new Map([...list.querySelectorAll<HTMLElement>("li:has(form, .session-confirm)")].map((li) => [li.dataset.sessionId, li]));
      list.replaceChildren(...sessions.map((session) => busy.get(session.sessionId) ?? sessionItem(session, session.sessionId === current, actions)));
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
    titleOf: (sessionId) => titles.get(sessionId),
    mark(sessionId) {
      current = sessionId;
      for (const button of list.querySelectorAll<HTMLElement>("button.session")) {
        if (button.dataset.sessionId === sessionId) button.setAttribute("aria-current", "true");
        else button.removeAttribute("aria-current");
      }
      byId("session-name").title = sessionId ?? "";
      setText(byId("session-name"), sessionId === undefined ? "no session open: start one with + New session, or open one from the list" : label(sessionId));
    },
  };
  return view;
}
