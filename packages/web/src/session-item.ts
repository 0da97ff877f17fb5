// One session in the sidebar: a button that opens it, and Rename (the title edited in place: Enter
// or Save keeps it, Esc or Cancel leaves it) and Delete (asked again before anything is deleted).
import type { SessionSummary } from "@harness/client";
import { h, setText } from "./dom.ts";

/** What the server takes as a title (it trims it too). */
export const MAX_TITLE_CHARS = 200;

export type SessionItemActions = {
  open(sessionId: string): void;
  /** Resolves once renamed (the list is then listed again); rejects with why not. */
  rename(sessionId: string, title: string): Promise<void>;
  /** Resolves once deleted; rejects with why not. */
  remove(sessionId: string): Promise<void>;
};

/** What is wrong with a title typed in, or undefined. */
export function titleProblem(title: string): string | undefined {
  const trimmed = title.trim();
  if (trimmed === "") return "a title must not be empty";
  if (trimmed.length > MAX_TITLE_CHARS) return `a title must be at most ${MAX_TITLE_CHARS} characters`;
  // As the server: controls, and the bidirectional overrides and isolates (they reorder what follows).
  if (/[\p{Cc}\u202A-\u202E\u2066-\u2069]/u.test(trimmed)) return "a title must not contain control characters";
  if (!trimmed.isWellFormed()) return "a title must not contain half a surrogate pair";
  return undefined;
}

/** What Delete asks before deleting: a run under way (as the list last said) is stopped with it. */
export function deleteQuestion(title: string, status: string): string {
  const running = status === "running" || status === "awaiting-approval";
  return `Delete “${title}” and its conversation for good?${running ? " Its run under way is stopped." : ""}`;
}

/** A fork's title: its source's, marked (and cut to fit the server's limit). */
export function forkTitle(title: string): string {
  const mark = " (fork)";
  const kept = title.slice(0, MAX_TITLE_CHARS - mark.length);
  // Not half a character: the server refuses a title holding half a surrogate pair.
  return (/[\ud800-\udbff]$/.test(kept) ? kept.slice(0, -1) : kept).trimEnd() + mark;
}

/** What a session without a title (no prompt yet) is called; its id is its tooltip. */
export const UNTITLED = "new session";

export function sessionItem(session: SessionSummary, current: boolean, actions: SessionItemActions): HTMLElement {
  const id = session.sessionId;
  const title = session.title || UNTITLED;
  const open = h(
    "button",
    { type: "button", class: "session", "data-session-id": id, title: id, "aria-current": current ? "true" : undefined },
    h("span", { class: "session-title" }, title),
    h("span", { class: "session-meta" }, `${session.status} · ${session.messageCount} message${session.messageCount === 1 ? "" : "s"}`),
  );
  open.addEventListener("click", () => actions.open(id));
  const rename = h("button", { type: "button", class: "session-rename", title: "Rename this session" }, "Rename");
  const remove = h("button", { type: "button", class: "session-delete", title: "Delete this session" }, "Delete");
  const tools = h("div", { class: "session-tools" }, rename, remove);
  const item = h("li", { "data-session-id": id }, open, tools);

  rename.addEventListener("click", () => {
    const input = h("input", { class: "session-title-input", maxlength: MAX_TITLE_CHARS, "aria-label": "New title" });
    input.value = session.title ?? "";
    const problem = h("span", { class: "session-problem", role: "alert" });
    const save = h("button", { type: "submit" }, "Save");
    const cancel = h("button", { type: "button" }, "Cancel");
    const form = h("form", { class: "session-rename-form" }, input, h("div", { class: "session-tools" }, save, cancel), problem);
    const back = () => item.replaceChildren(open, tools);
    cancel.addEventListener("click", back);
    input.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      // Esc here leaves the form; it does not cancel the open session's run too.
      event.stopPropagation();
      back();
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const bad = titleProblem(input.value);
      if (bad) return setText(problem, bad);
      save.disabled = true;
      try {
        await actions.rename(id, input.value.trim());
        back();
      } catch (error) {
        setText(problem, (error as Error).message);
        save.disabled = false;
      }
    });
    item.replaceChildren(form);
    input.focus();
    input.select();
  });

  remove.addEventListener("click", () => {
    const yes = h("button", { type: "button", class: "session-delete-confirm" }, "Delete");
    const no = h("button", { type: "button", class: "session-delete-keep" }, "Keep");
    const problem = h("span", { class: "session-problem", role: "alert" });
    const ask = h("div", { class: "session-confirm" }, h("span", {}, deleteQuestion(title, session.status)), h("div", { class: "session-tools" }, yes, no), problem);
    no.addEventListener("click", () => item.replaceChildren(open, tools));
    yes.addEventListener("click", async () => {
      yes.disabled = no.disabled = true;
      try {
        await actions.remove(id);
      } catch (error) {
        setText(problem, (error as Error).message);
        yes.disabled = no.disabled = false;
      }
    });
    item.replaceChildren(open, ask);
  });
  return item;
}
