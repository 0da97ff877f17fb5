// The lines of `harness serve`'s log, written to its stdout or stderr a moment at a time.
import type { Sink } from "../display/render.ts";

/** How long a line may wait for the ones logged after it. */
export const FLUSH_MS = 15;
/** Written at once past this many characters waiting. */
const MAX_PENDING = 64 * 1024;

/** Writes each line to `sink`, the lines of one moment in one write: a hundred runs that start or end
 * together log two hundred lines, and each write is a system call of the server's event loop that
 * wakes whoever reads the log (a terminal, a pipe to a journal). A line waits at most FLUSH_MS;
 * what waits is written when the process exits. A stream whose reader went away (`harness serve |
 * head -1`: EPIPE) takes no more lines, rather than take the server down with its unhandled error. */
export function linesTo(sink: Sink, exits: Pick<NodeJS.EventEmitter, "once"> = process): (line: string) => void {
  let gone = false;
  let pending = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  (sink as Sink & Partial<Pick<NodeJS.EventEmitter, "on">>).on?.("error", () => (gone = true));
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const text = pending;
    pending = "";
    if (!gone && text) sink.write(text);
  };
  exits.once("exit", flush);
  return (line) => {
    if (gone) return;
    pending += `${line}\n`;
    if (pending.length >= MAX_PENDING) flush();
    // Unreferenced: a server that is otherwise done exits, and its exit writes what waits.
    else timer ??= setTimeout(flush, FLUSH_MS).unref();
  };
}
