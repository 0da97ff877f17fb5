// A running tool call's output as tool.output events: the text a tool hands to ToolContext.progress,
// gathered so that a call sends at most one event per STREAM_INTERVAL_MS, and capped so that a
// command printing megabytes costs its followers (the runner's event log, the session's state and
// every client) little. The first STREAM_HEAD_CHARS are sent as appended text; once the output
// outgrows head and tail, it is sent again whole but with its middle cut (`replace`), at most once
// per STREAM_CUT_INTERVAL_MS, so that its latest lines stay in view.
import type { AgentEvent } from "@harness/protocol";
import { streamCutNote } from "@harness/protocol/streamed-output";

export const STREAM_INTERVAL_MS = 100;
/** How often output with its middle cut is sent again: each time it is sent whole (head and tail). */
export const STREAM_CUT_INTERVAL_MS = 1_000;
/** Characters kept from each end of a long output, well within the Bash tool's own cap (30,000). */
export const STREAM_HEAD_CHARS = 8_000;
export const STREAM_TAIL_CHARS = 8_000;

export type OutputStream = {
  /** Text the call produced, after what it handed over before. Ignored once closed. */
  push(text: string): void;
  /** The call ended: what is pending is dropped (its result follows), and no event comes after. */
  close(): void;
};

export function createOutputStream(toolUseId: string, emit: (event: AgentEvent) => void): OutputStream {
  let head = "";
  let tail = "";
  /** Characters dropped between head and tail; above zero the output is sent with `replace`. */
  let omitted = 0;
  /** Characters of head + tail sent as appended text (while nothing is omitted). */
  let sent = 0;
  let lastAt = -Infinity;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function flush(): void {
    timer = undefined;
    if (closed) return;
    lastAt = Date.now();
    if (omitted > 0) {
      emit({ type: "tool.output", toolUseId, text: head + streamCutNote(omitted) + tail, replace: true });
      return;
    }
    const text = (head + tail).slice(sent);
    sent += text.length;
    if (text) emit({ type: "tool.output", toolUseId, text });
  }

  return {
    push(text) {
      if (closed || typeof text !== "string" || text === "") return;
      if (head.length < STREAM_HEAD_CHARS) {
        const take = STREAM_HEAD_CHARS - head.length;
        head += text.slice(0, take);
        text = text.slice(take);
      }
      if (text) {
        tail += text;
        if (tail.length > STREAM_TAIL_CHARS) {
          let cut = tail.length - STREAM_TAIL_CHARS;
          // Never keep half of a surrogate pair at the tail's start.
          if (isLowSurrogate(tail.charCodeAt(cut))) cut++;
          omitted += cut;
          tail = tail.slice(cut);
        }
      }
      if (timer) return;
      const wait = lastAt + (omitted > 0 ? STREAM_CUT_INTERVAL_MS : STREAM_INTERVAL_MS) - Date.now();
      if (wait <= 0) flush();
      else timer = setTimeout(flush, wait);
    },
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
