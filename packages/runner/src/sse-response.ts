// Streams a run's event log to one HTTP response as text/event-stream.
import type { ServerResponse } from "node:http";
import type { EventLog } from "./event-log.ts";

export const SSE_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

/** Sends `frames` (a replay), then follows `log` until the run ends, then ends the response. Frames
 * written in the same tick leave in one packet. `onClose` runs when the client goes away first. */
export function streamLog(res: ServerResponse, log: EventLog, frames: readonly string[], onClose?: () => void): void {
  res.writeHead(200, SSE_HEADERS);
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  let open = true;
  let corked = false;
  let unsubscribe = () => {};
  const uncork = () => {
    if (!corked) return;
    corked = false;
    if (open) res.uncork();
  };
  const write = (frame: string) => {
    if (!open) return;
    if (!corked) {
      corked = true;
      res.cork();
      process.nextTick(uncork);
    }
    res.write(frame);
  };
  const finish = () => {
    if (!open) return;
    open = false;
    unsubscribe();
    if (corked) {
      corked = false;
      res.uncork();
    }
    res.end();
  };

  for (const frame of frames) write(frame);
  unsubscribe = log.subscribe({ frame: write, end: finish });
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
