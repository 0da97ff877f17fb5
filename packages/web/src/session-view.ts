// The open session: one client (the SDK's HarnessClient, which reconnects by itself) following it,
// the conversation, the status line, the prompt box (Enter sends, Shift+Enter makes a new line; a
// prompt while a run is under way steers it), Cancel (and Esc), the permission mode, the
// background shells, the steers on their way and the notices that come meanwhile, the workspace's
// files (files-view.ts); Fork (of a prompt, or the whole session) is the sessions' business: it is
// handed to the hooks.
import { createHarnessClient, type HarnessClient, type HarnessState } from "@harness/client";
import { byId, setText } from "./dom.ts";
import { conversationView } from "./conversation-view.ts";
import { filesView } from "./files-view.ts";
import type { Credentials } from "./credentials.ts";
import { statusLine, underWay } from "./format.ts";
import { noticesView } from "./notices-view.ts";
import { shellsView } from "./shells-view.ts";
import { slashPicker } from "./slash-picker-view.ts";
import { steersView } from "./steers-view.ts";
import { workspaceFiles } from "./workspace-files.ts";

export type SessionView = {
  /** Follows `sessionId`; `draft`: put in the prompt box once it is open (a fork's prompt). */
  open(sessionId: string, draft?: string): Promise<void>;
  /** The session followed, if any. */
  current(): string | undefined;
  /** Stops following the session (it was deleted): no conversation, no prompt box. */
  close(): void;
};

export type SessionHooks = {
  /** A run started or ended, or the session was opened: the sidebar's list is stale. */
  changed(): void;
  /** The server no longer takes the token. */
  refused(why: string): void;
  /** Something went wrong that the user should read (cleared with an empty string). */
  problem(message: string): void;
  /** Fork the session open: before the prompt `messageId`, or all of it. */
  fork(messageId?: string): void;
};

const MODES = new Set(["default", "acceptEdits", "fullAuto"]);

export function sessionView(credentials: Credentials, hooks: SessionHooks): SessionView {
  const prompt = byId<HTMLTextAreaElement>("prompt");
  const send = byId<HTMLButtonElement>("send");
  const cancel = byId<HTMLButtonElement>("cancel");
  const mode = byId<HTMLSelectElement>("mode");
  const status = byId("status");
  const runError = byId("run-error");
  const conversationBox = byId("conversation");
  let client: HarnessClient | undefined;
  /** The prompt a rewind sent is going back to before: once gone, it is put in the prompt box. */
  let rewound: { id: string; content: string } | undefined;
  const conversation = conversationView(conversationBox, {
    approve: (id) => client?.approve(id),
    deny: (id) => client?.deny(id, "denied in the web UI"),
    background: (id) => client?.background(id),
    fork: (id) => hooks.fork(id),
    rewind(id, dryRun) {
      if (!client) return;
      const content = client.state?.messages.find((m) => m.id === id)?.content;
      if (!dryRun && content !== undefined) rewound = { id, content };
      client.rewind(id, dryRun);
    },
  });
  const shells = shellsView(byId("shells"), (id) => client?.killShell(id));
  const notices = noticesView(byId("notices"));
  const steers = steersView(byId("steers"));
  const files = filesView(workspaceFiles(credentials), () => client?.sessionId);
  const picker = slashPicker(prompt, byId("slash-picker"), () => client?.state?.available);
  let wasUnderWay = false;

  function showState(state: HarnessState | undefined): void {
    if (!client) return;
    const atBottom = conversationBox.scrollHeight - conversationBox.scrollTop - conversationBox.clientHeight < 40;
    if (state) conversation.render(state);
    shells.update(state);
    notices.update(state);
    steers.update(state);
    picker.refresh();
    if (rewound && state && !state.messages.some((m) => m.id === rewound?.id)) {
      prompt.value = rewound.content;
      rewound = undefined;
      prompt.focus();
    }
    if (atBottom) conversationBox.scrollTop = conversationBox.scrollHeight;
    focusApproval(state);
    setText(status, statusLine(state, client.connection));
    status.dataset.status = client.connection === "open" ? (state?.status ?? "") : client.connection;
    const running = underWay(state);
    cancel.disabled = !running;
    setText(send, running ? "Steer" : "Send");
    runError.hidden = !(state?.status === "error" && state.error);
    setText(runError, state?.error ? `the run failed: ${state.error}` : "");
    const permissionMode = state?.config?.permissionMode ?? "default";
    if (document.activeElement !== mode && MODES.has(permissionMode)) mode.value = permissionMode;
    if (running !== wasUnderWay) hooks.changed();
    wasUnderWay = running;
  }

  /** From the keyboard as from the mouse: a new question for approval takes the focus from an
   * empty prompt box (Enter approves, Tab reaches Deny); once none is left, the prompt box has it
   * back. Not while something is typed there, or anything else has the focus. */
  let asked = new Set<string>();
  function focusApproval(state: HarnessState | undefined): void {
    const waiting = (state?.pendingApprovals ?? []).map((p) => p.toolCallId);
    const fresh = waiting.some((id) => !asked.has(id));
    const wasAsking = asked.size > 0;
    asked = new Set(waiting);
    const idle = document.activeElement === document.body || document.activeElement === null;
    const approve = conversationBox.querySelector<HTMLButtonElement>('.tool-call[data-status="awaiting-approval"] .approve:not(:disabled)');
    if (fresh && approve && (idle || (document.activeElement === prompt && prompt.value === ""))) approve.focus();
    else if (wasAsking && waiting.length === 0 && (idle || conversationBox.contains(document.activeElement))) prompt.focus();
  }

  function submit(): void {
    const text = prompt.value;
    if (!client || text.trim() === "") return;
    hooks.problem("");
    try {
      if (underWay(client.state)) {
        client.steer(text);
      } else {
        client.submit(text);
        notices.newRun();
      }
      prompt.value = "";
    } catch (error) {
      hooks.problem((error as Error).message);
    }
  }

  function stop(): void {
    if (client && underWay(client.state)) client.cancel();
  }

  prompt.addEventListener("keydown", (event) => {
    if (picker.key(event)) return;
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    submit();
  });
  byId<HTMLFormElement>("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
  cancel.addEventListener("click", stop);
  byId("fork-session").addEventListener("click", () => hooks.fork());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !event.isComposing) stop();
  });
  mode.addEventListener("change", async () => {
    if (!client || !MODES.has(mode.value)) return;
    const result = await client.configure({ permissionMode: mode.value as "default" | "acceptEdits" | "fullAuto" });
    if (!result.ok) hooks.problem(`the permission mode was not changed: ${result.error}`);
  });

  function follow(created: HarnessClient): void {
    created.on("state", (state) => showState(state));
    created.on("connection", () => showState(created.state));
    created.on("error", (error) => {
      if (error.code === "token_refused") return hooks.refused(error.message);
      // The status line says "reconnecting…" while the client tries again.
      if (error.code === "reconnect_failed" && /trying again$/.test(error.message)) return;
      // A command's error starts with its name: a refused kill is shown by the shells.
      if (/^kill-shell\b/.test(error.message)) return shells.problem(error.message);
      if (/^rewind\b/.test(error.message)) {
        rewound = undefined;
        return conversation.rewindRefused(error.message);
      }
      hooks.problem(error.message);
    });
  }

  /** Drops what the page shows of the session open until now; `closed`: none is open after. */
  function forget(closed: boolean): void {
    rewound = undefined;
    asked = new Set();
    conversation.clear();
    shells.clear();
    notices.clear();
    steers.clear();
    picker.close();
    files.reset(closed);
    byId("composer").hidden = closed;
    byId("mode-row").hidden = closed;
    byId("fork-session").hidden = closed;
  }

  return {
    current: () => client?.sessionId,
    close() {
      client?.close();
      client = undefined;
      wasUnderWay = false;
      forget(true);
      setText(status, "");
      runError.hidden = true;
      history.replaceState(history.state, "", location.pathname + location.search);
      hooks.problem("");
    },
    async open(sessionId, draft) {
      hooks.problem("");
      forget(false);
      location.hash = `session=${encodeURIComponent(sessionId)}`;
      try {
        if (client) {
          await client.switchSession(sessionId);
        } else {
          client = createHarnessClient({ url: location.origin, sessionId, ...credentials });
          follow(client);
          showState(undefined);
          await client.connect();
        }
        if (draft !== undefined) {
          prompt.value = draft;
          prompt.setSelectionRange(draft.length, draft.length);
        }
        prompt.focus();
      } catch (error) {
        const message = (error as Error).message;
        if (/\b401\b/.test(message)) hooks.refused(message);
        else if (!/switched to session/.test(message)) hooks.problem(message);
      }
      hooks.changed();
    },
  };
}
