// The conversation: one element per message, updated in place as the state changes (the client
// hands over a new state object per change, sharing the messages that did not change, so only
// those that did are touched). The user's text is shown as typed, the assistant's as Markdown
// (markdown-dom.ts, text as text still), tool calls where they were made. Each of the user's prompts
// (steers aside) has Fork, for a new session of what came before it, and Rewind here.
import type { HarnessMessage, HarnessState } from "@harness/protocol";
import { h, setText } from "./dom.ts";
import { markdownView } from "./markdown-dom.ts";
import { clip, segments } from "./format.ts";
import { rewindView, type RewindActions, type RewindView } from "./rewind-view.ts";
import { toolCallView, type CallActions, type ToolCallView } from "./tool-call-view.ts";

/** Most characters of one message's text kept in the page. */
const MAX_MESSAGE_CHARS = 200_000;

type TextView = { element: HTMLElement; show(text: string, cut: number): void };
type MessageView = { element: HTMLElement; shown?: HarnessMessage; calls: Map<string, ToolCallView>; texts: TextView[]; thinking: HTMLElement; rewind?: RewindView };

/** One stretch of a message's text; `cut` characters past it are counted, not shown. */
function textView(role: HarnessMessage["role"]): TextView {
  if (role === "user") {
    const element = h("div", { class: "text" });
    return { element, show: (text, cut) => setText(element, cut > 0 ? `${text}\n… ${cut} more characters not shown` : text) };
  }
  const body = markdownView(h("div", { class: "markdown" }));
  const note = h("div", { class: "cut", hidden: true });
  return {
    element: h("div", { class: "text" }, body.element, note),
    show(text, cut) {
      body.render(text);
      note.hidden = cut === 0;
      setText(note, cut > 0 ? `… ${cut} more characters not shown` : "");
    },
  };
}

/** Fork on a prompt: a new session of the conversation before it (the prompt for the input). */
export type ForkActions = { fork(messageId: string): void };

export type ConversationView = {
  render(state: HarnessState): void;
  clear(): void;
  /** The server refused a rewind: the prompt's panel that asked says why. */
  rewindRefused(message: string): void;
};

export function conversationView(root: HTMLElement, actions: CallActions & RewindActions & ForkActions): ConversationView {
  const views = new Map<string, MessageView>();
  let reasons: Map<string, string | undefined> = new Map();

  function viewOf(message: HarnessMessage): MessageView {
    let view = views.get(message.id);
    if (!view) {
      const thinking = h("details", { class: "thinking", hidden: true });
      // A steer joined a run under way: there is no going back to before it alone.
      const prompt = message.role === "user" && !message.steer;
      const rewind = prompt ? rewindView(message.id, actions) : undefined;
      const fork = prompt ? h("button", { type: "button", class: "fork", title: "A new session of the conversation before this prompt, with the files as they were then; the prompt waits in its prompt box" }, "Fork") : undefined;
      fork?.addEventListener("click", () => actions.fork(message.id));
      const role = h("div", { class: "role" }, h("span", {}, message.role === "user" ? "you" : "assistant"), fork, rewind?.button);
      const element = h("div", { class: "message", "data-role": message.role, "data-id": message.id }, role, thinking);
      view = { element, calls: new Map(), texts: [], thinking, rewind };
      views.set(message.id, view);
    }
    return view;
  }

  function update(view: MessageView, message: HarnessMessage, pendingChanged: boolean): void {
    if (view.shown === message && !pendingChanged) return;
    view.shown = message;
    view.element.dataset.status = message.status;
    if (message.thinking) {
      view.thinking.hidden = false;
      const body = view.thinking.querySelector("pre") ?? view.thinking.appendChild(h("pre"));
      if (!view.thinking.querySelector("summary")) view.thinking.prepend(h("summary", {}, "thinking"));
      setText(body, clip(message.thinking, MAX_MESSAGE_CHARS).text);
    }
    const parts: Node[] = [];
    let texts = 0;
    let budget = MAX_MESSAGE_CHARS;
    for (const segment of segments(message)) {
      if (segment.kind === "call") {
        let call = view.calls.get(segment.call.id);
        if (!call) view.calls.set(segment.call.id, (call = toolCallView(actions)));
        call.update(segment.call, reasons.get(segment.call.id));
        parts.push(call.element);
        continue;
      }
      const text = (view.texts[texts] ??= textView(message.role));
      texts++;
      // Each part is a block of its own: the blank lines around a call would only add space.
      const { text: shown, cut } = clip(segment.text.replace(/^\n+|\n+$/g, ""), Math.max(budget, 0));
      budget -= segment.text.length;
      text.show(shown, cut);
      parts.push(text.element);
    }
    view.texts.length = texts;
    const wanted = [view.element.firstElementChild!, view.thinking, ...parts, ...(view.rewind ? [view.rewind.panel] : [])];
    const current = [...view.element.children];
    if (current.length !== wanted.length || current.some((node, i) => node !== wanted[i])) view.element.replaceChildren(...wanted);
  }

  return {
    render(state) {
      const next = new Map((state.pendingApprovals ?? []).map((p) => [p.toolCallId, p.reason ?? p.description]));
      const pendingChanged = next.size !== reasons.size || [...next].some(([id, why]) => reasons.get(id) !== why);
      reasons = next;
      const ids = new Set(state.messages.map((m) => m.id));
      for (const id of views.keys()) if (!ids.has(id)) views.delete(id);
      const elements = state.messages.map((message) => {
        const view = viewOf(message);
        update(view, message, pendingChanged && (message.toolCalls ?? []).length > 0);
        view.rewind?.update(state);
        return view.element;
      });
      const current = [...root.children];
      if (current.length !== elements.length || current.some((node, i) => node !== elements[i])) root.replaceChildren(...elements);
    },
    rewindRefused(message) {
      for (const view of views.values()) view.rewind?.refused(message);
    },
    clear() {
      views.clear();
      reasons = new Map();
      root.replaceChildren();
    },
  };
}
