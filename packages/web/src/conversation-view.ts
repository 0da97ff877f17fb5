// The conversation: one element per message, updated in place as the state changes (the client
// hands over a new state object per change, sharing the messages that did not change, so only
// those that did are touched). Text is shown as text, tool calls where they were made.
import type { HarnessMessage, HarnessState } from "@harness/protocol";
import { h, setText } from "./dom.ts";
import { clip, segments } from "./format.ts";
import { toolCallView, type ApprovalActions, type ToolCallView } from "./tool-call-view.ts";

/** Most characters of one message's text kept in the page. */
const MAX_MESSAGE_CHARS = 200_000;

type MessageView = { element: HTMLElement; shown?: HarnessMessage; calls: Map<string, ToolCallView>; texts: HTMLElement[]; thinking: HTMLElement };

export type ConversationView = { render(state: HarnessState): void; clear(): void };

export function conversationView(root: HTMLElement, actions: ApprovalActions): ConversationView {
  const views = new Map<string, MessageView>();
  let reasons: Map<string, string | undefined> = new Map();

  function viewOf(message: HarnessMessage): MessageView {
    let view = views.get(message.id);
    if (!view) {
      const thinking = h("details", { class: "thinking", hidden: true });
      const element = h("div", { class: "message", "data-role": message.role, "data-id": message.id }, h("div", { class: "role" }, message.role === "user" ? "you" : "assistant"), thinking);
      view = { element, calls: new Map(), texts: [], thinking };
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
      const text = (view.texts[texts] ??= h("div", { class: "text" }));
      texts++;
      // Each part is a block of its own: the blank lines around a call would only add space.
      const { text: shown, cut } = clip(segment.text.replace(/^\n+|\n+$/g, ""), Math.max(budget, 0));
      budget -= segment.text.length;
      setText(text, cut > 0 ? `${shown}\n… ${cut} more characters not shown` : shown);
      parts.push(text);
    }
    view.texts.length = texts;
    const head = [view.element.firstElementChild!, view.thinking];
    const current = [...view.element.children].slice(2);
    if (current.length !== parts.length || current.some((node, i) => node !== parts[i])) view.element.replaceChildren(...head, ...parts);
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
        return view.element;
      });
      const current = [...root.children];
      if (current.length !== elements.length || current.some((node, i) => node !== elements[i])) root.replaceChildren(...elements);
    },
    clear() {
      views.clear();
      reasons = new Map();
      root.replaceChildren();
    },
  };
}
