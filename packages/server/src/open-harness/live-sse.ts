// A live SSE stream (the event feed's, the logs'): what the client missed, then each new item as it
// comes, until the client goes away or falls MAX_QUEUED_EVENTS behind. The stream holds no more than
// that for a client that reads too slowly: it ends instead, and its client resumes after the
// Last-Event-ID it got.
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";

/** Items a stream holds while its client reads too slowly for them: past that, the stream ends. */
export const MAX_QUEUED_EVENTS = 1000;

/** A comment sent this often keeps a quiet stream open through proxies that cut idle connections. */
const KEEP_ALIVE_MS = 25_000;

export type LiveSource<T> = {
  /** Calls `listener` with each new item, at once; returns what stops it. */
  subscribe(listener: (item: T) => void): () => void;
  /** What the client missed, oldest first: read once subscribed, so that an item that comes
   * meanwhile is in one or the other, or both (sent once). */
  missed(): readonly T[];
  idOf(item: T): string;
  /** The event's data, or undefined for an item the client did not ask for. Called only as the item
   * is sent: nothing is serialised for an item a stream merely holds. */
  dataOf(item: T): string | undefined;
};

export function streamLive<T>(c: Context, source: LiveSource<T>): Response {
  return streamSSE(c, async (stream) => {
    const queue: T[] = [];
    let wake: (() => void) | undefined;
    const unsubscribe = source.subscribe((item) => {
      if (queue.length >= MAX_QUEUED_EVENTS) {
        unsubscribe();
        stream.abort();
        return;
      }
      queue.push(item);
      wake?.();
    });
    stream.onAbort(() => wake?.());
    const keepAlive = setInterval(() => void stream.write(": keep-alive\n\n").catch(() => {}), KEEP_ALIVE_MS);
    const send = async (item: T) => {
      const data = source.dataOf(item);
      // No `event:` name: the type is in the data, and EventSource's onmessage sees only unnamed events.
      if (data !== undefined) await stream.writeSSE({ id: source.idOf(item), data });
    };
    try {
      const missed = source.missed();
      const sent = new Set(missed.map((item) => source.idOf(item)));
      for (const item of missed) if (!stream.aborted) await send(item);
      while (!stream.aborted) {
        const item = queue.shift();
        if (item !== undefined) {
          if (!sent.has(source.idOf(item))) await send(item);
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      clearInterval(keepAlive);
      unsubscribe();
    }
  });
}
