// Streams a run's event log to one HTTP response as text/event-stream.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { EventLog } from "../runs/event-log.ts";

/** A reader this far behind (bytes written but not yet taken by the connection, besides what is
 * left of the replay it asked for) is cut off. */
export const MAX_STREAM_BACKLOG_BYTES = 16 * 1024 * 1024;

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** Sends `frames` (a replay), then follows `log` until the run ends, then ends the response. Frames
 * written in the same tick leave in one write (one packet, one wakeup of the reader), with the
 * response's head when they are the first: a query appends run.started in the tick it starts
 * streaming, so its head and first event are one write. `onClose`
 * runs when the client goes away first. `added`: the last event goes in its shorter form when it
 * has one (see EventLog.append). */
export function streamLog(res: ServerResponse, log: EventLog, frames: readonly string[], onClose?: () => void, added = false): void {
  res.writeHead(200, SSE_HEADERS);
  // A tick's frames go straight to the socket as one chunk of the chunked body, its size line and
  // terminator in the same string: written through the response, a chunk is four socket writes
  // (size, line break, data, line break) that only corking joins, and the buffering of them cost
  // a few hundred bytes of garbage per event. The head is flushed first and the response writes
  // the body's end, so the framing stays the response's.
  const socket: Socket | null = res.socket;
  socket?.setNoDelay(true);
  let open = true;
  let headSent = false;
  let pending = "";
  let scheduled = false;
  let unsubscribe = () => {};
  /** At most what is left unsent of the replay (the first write): a backlog that a reader reading
   * it is not behind by. The least backlog seen since, as the connection takes the oldest first. */
  let replayLeft = 0;

  const send = (end: boolean) => {
    scheduled = false;
    // Without a socket the client is gone (see below).
    if (!open || !socket) return;
    // A reader this far behind is cut off rather than buffered for without end (as one gone): it
    // re-attaches from the last event it took (GET /runs/:id/events) and catches up from the log.
    replayLeft = Math.min(replayLeft, socket.writableLength);
    if (socket.writableLength - replayLeft > MAX_STREAM_BACKLOG_BYTES) {
      gone();
      socket.destroy();
      return;
    }
    const body = pending;
    pending = "";
    if (end) {
      open = false;
      unsubscribe();
    }
    // The head, the frames and the body's end leave in one write.
    const first = !headSent;
    const gather = first || end;
    if (gather) socket.cork();
    if (!headSent) {
      headSent = true;
      res.flushHeaders();
    }
    if (body) socket.write(`${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n`);
    if (end) res.end();
    if (gather) socket.uncork();
    if (first) replayLeft = socket.writableLength;
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    process.nextTick(send, false);
  };
  const write = (frame: string) => {
    if (!open) return;
    pending += frame;
    schedule();
  };

  for (const frame of frames) write(frame);
  // A log with nothing to send yet still answers at once: the client is waiting for the head.
  schedule();
  unsubscribe = log.subscribe({ frame: write, end: () => send(true), added });
  const gone = () => {
    if (!open) return;
    open = false;
    unsubscribe();
    onClose?.();
  };
  res.on("close", gone);
  // The client left before the answer started: 'close' may already have fired.
  if (!socket || socket.destroyed) gone();
}
