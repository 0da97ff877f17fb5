// The model's thinking in `harness chat`, as Claude Code shows it. While the model thinks, the
// working row says "Thinking…" (thinkingNow). Once its thinking is over (reply text or a tool call
// follows it, or the message ends), the chat shows it folded, as one dim line
//   ✻ Thought for 4s
// (the seconds from when the chat first saw it to when it saw it over; "✻ Thought" for thinking
// that was over when the chat first saw it: a chat joined late, a resumed session), or with the
// chat's verbose (--verbose) whole, dimmed, under "✻ Thinking…". A message whose model calls think
// several times shows each stretch where it came.
import type { HarnessMessage, HarnessState } from "@harness/protocol";
import { printable } from "../../display/terminal-text.ts";

export type ThinkingShown = {
  /** Called with each assistant message as shown, before its new text and tool calls; `moved`:
   * the message has something this chat has not shown yet besides thinking (text, a tool call),
   * or it has ended. Prints the message's thinking, through `line`, once it is over. */
  show(message: HarnessMessage, moved: boolean): void;
};

export function createThinkingShown(o: { full: boolean; dim: (text: string) => string; line: (text: string) => void; now?: () => number }): ThinkingShown {
  const now = o.now ?? (() => Date.now());
  /** Per message: how much of its thinking is shown, and when the chat first saw the rest. */
  const seen = new Map<string, { chars: number; since?: number }>();
  return {
    show(message, moved) {
      const thinking = message.thinking ?? "";
      let mine = seen.get(message.id);
      if (!mine) seen.set(message.id, (mine = { chars: 0 }));
      // A message cut short (a rewind) is followed from its new end.
      if (thinking.length < mine.chars) mine.chars = thinking.length;
      if (thinking.length === mine.chars) return;
      const over = moved || message.status !== "running";
      if (!over) {
        mine.since ??= now();
        return;
      }
      const stretch = thinking.slice(mine.chars).trim();
      const since = mine.since;
      mine.chars = thinking.length;
      mine.since = undefined;
      if (!stretch) return;
      if (!o.full) {
        o.line(o.dim(since === undefined ? "✻ Thought" : `✻ Thought for ${Math.max(1, Math.round((now() - since) / 1000))}s`));
        return;
      }
      const lines = printable(stretch.replace(/\r\n?/g, "\n")).split("\n");
      o.line([o.dim("✻ Thinking…"), ...lines.map((text) => (text ? `  ${o.dim(text)}` : ""))].join("\n"));
    },
  };
}

/** Whether the model of the run under way is thinking now: the state's last message is a running
 * reply whose thinking grew last (after its text and tool calls). Keeps, between states, what it
 * saw of that message. */
export function thinkingNow(): (state: HarnessState) => boolean {
  let last: { id: string; thinking: number; rest: number; now: boolean } | undefined;
  return (state) => {
    const message = state.messages.at(-1);
    if (!message || message.role !== "assistant" || message.status !== "running") {
      last = undefined;
      return false;
    }
    const thinking = message.thinking?.length ?? 0;
    const rest = message.content.length + (message.toolCalls?.length ?? 0);
    if (!last || last.id !== message.id) last = { id: message.id, thinking: 0, rest: 0, now: false };
    if (rest !== last.rest) last.now = false;
    else if (thinking > last.thinking) last.now = true;
    last.thinking = thinking;
    last.rest = rest;
    return last.now;
  };
}
