// Streams a run's event log to one HTTP response as text/event-stream.
import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { EventLog } from "./event-log.ts";

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
  res.socket?.setNoDelay(true);
  let open = true;
  let wrote = false;
  // A log with nothing to send yet still answers at once: the client is waiting for the head.
  process.nextTick(() => {
    if (open && !wrote) res.flushHeaders();
  });

  // The response gathers a tick's frames into one chunk; its socket is corked too, because the
  // response writes a chunk's size line, data and terminator as separate socket writes, which an
  // uncorked socket sends as separate syscalls (four per event).
  let corked: Socket | null | undefined;
  let unsubscribe = () => {};
  const uncork = () => {
    const socket = corked;
    if (socket === undefined) return;
    corked = undefined;
    if (!open) return;
    res.uncork();
    socket?.uncork();
  };
  const write = (frame: string) => {
    if (!open) return;
    wrote = true;
    if (corked === undefined) {
      corked = res.socket;
      corked?.cork();
      res.cork();
      process.nextTick(uncork);
    }
    res.write(frame);
  };
  const finish = () => {
    if (!open) return;
    // The tick's frames and the end of the body leave together.
    const gathering = corked !== undefined;
    const socket = gathering ? corked : res.socket;
    if (!gathering) socket?.cork();
    corked = undefined;
    if (gathering) res.uncork();
    open = false;
    unsubscribe();
    res.end();
    socket?.uncork();
  };

  for (const frame of frames) write(frame);
  unsubscribe = log.subscribe({ frame: write, end: finish, added });
  res.on("close", () => {
    if (!open) return;
    open = false;
    unsubscribe();
    onClose?.();
  });
  if (!res.socket || res.socket.destroyed) {
    // The client left before the answer started: 'close' may already have fired.
    if (open) {
      open = false;
      unsubscribe();
      onClose?.();
    }
  }
}
