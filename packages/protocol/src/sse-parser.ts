// A small, allocation-light parser for text/event-stream (the WHATWG "event stream interpretation"):
// lines end in \n, \r\n or \r; a blank line dispatches the event; several `data:` lines join with \n;
// lines starting with ":" are comments; an unfinished event at the end of the stream is dropped.
// Chunks may split anywhere, including between \r and \n.

export type SseMessage = {
  /** The last `id:` seen in the stream so far (it carries over between events, as in EventSource). */
  id: string | undefined;
  /** The `event:` field, or "message" when absent. */
  event: string;
  data: string;
};

export type SseParser = {
  /** Feeds decoded text; calls onMessage for each complete event, in order. */
  push(chunk: string): void;
  /** The stream ended: a last line without its line ending is read, and an event without its
   * closing blank line is dispatched (as some SDKs do, where the standard would drop it). */
  finish(): void;
};

const LF = 10;
const CR = 13;
const SPACE = 32;

export function createSseParser(onMessage: (message: SseMessage) => void): SseParser {
  // The text of the line being read, in the chunks it came in (none holds a line ending). They are
  // joined once, when a chunk ends the line: joining and searching all of it at every chunk made an
  // event of megabytes (a run's transcript, in 64 KiB chunks) cost time quadratic in its size.
  let pending: string[] = [];
  let skipLeadingLF = false;
  let id: string | undefined;
  let event = "";
  let data = "";
  let hasData = false;

  function line(text: string, from: number, to: number): void {
    if (from === to) {
      if (hasData) onMessage({ id, event: event || "message", data });
      event = "";
      data = "";
      hasData = false;
      return;
    }
    const colon = text.indexOf(":", from);
    if (colon === from) return;
    let field: string;
    let value: string;
    if (colon === -1 || colon >= to) {
      field = text.slice(from, to);
      value = "";
    } else {
      field = text.slice(from, colon);
      value = text.slice(text.charCodeAt(colon + 1) === SPACE && colon + 1 < to ? colon + 2 : colon + 1, to);
    }
    switch (field) {
      case "data":
        data = hasData ? `${data}\n${value}` : value;
        hasData = true;
        break;
      case "event":
        event = value;
        break;
      case "id":
        if (!value.includes("\0")) id = value;
        break;
    }
  }

  return {
    finish() {
      if (pending.length > 0) {
        const text = pending.join("");
        pending = [];
        line(text, 0, text.length);
      }
      line("", 0, 0);
    },
    push(chunk) {
      if (chunk.indexOf("\n") === -1 && chunk.indexOf("\r") === -1) {
        if (chunk.length > 0) {
          skipLeadingLF = false;
          pending.push(chunk);
        }
        return;
      }
      const text = pending.length === 0 ? chunk : pending.length === 1 ? pending[0] + chunk : pending.join("") + chunk;
      pending = [];
      const n = text.length;
      let start = 0;
      if (skipLeadingLF && n > 0) {
        skipLeadingLF = false;
        if (text.charCodeAt(0) === LF) start = 1;
      }
      // The pending pieces hold no line ending: the first search starts in the new chunk.
      const from = Math.max(start, n - chunk.length);
      let cr = text.indexOf("\r", from);
      if (cr === -1) {
        for (let nl = text.indexOf("\n", from); nl !== -1; nl = text.indexOf("\n", start)) {
          line(text, start, nl);
          start = nl + 1;
        }
      } else {
        let nl = text.indexOf("\n", from);
        while (nl !== -1 || cr !== -1) {
          if (cr === -1 || (nl !== -1 && nl < cr)) {
            line(text, start, nl);
            start = nl + 1;
          } else {
            line(text, start, cr);
            start = cr + 1;
            if (start === n) skipLeadingLF = true;
            else if (text.charCodeAt(start) === LF) start++;
            cr = text.indexOf("\r", start);
          }
          if (nl !== -1 && nl < start) nl = text.indexOf("\n", start);
        }
      }
      if (start < n) pending.push(text.slice(start));
    },
  };
}
