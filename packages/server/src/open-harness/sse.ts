// An execution's events as SSE: those after Last-Event-ID (all, without it), then live ones, until
// `done`. A client that goes away stops its stream only, never the execution.
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { allEventsOut, type Execution } from "./executions.ts";

export function streamExecution(c: Context, execution: Execution, after = 0): Response {
  c.header("x-execution-id", execution.id);
  return streamFollowing(c, execution, after, () => execution.events);
}

/** What `itemsOf()` answers (read again as the execution gains events) as SSE, numbered from 1:
 * those after the `after`th, then each new one, until the execution has ended and all are sent. */
export function streamFollowing(c: Context, execution: Execution, after: number, itemsOf: () => readonly unknown[]): Response {
  return streamFollowed(c, { listeners: execution.listeners, items: itemsOf, ended: () => allEventsOut(execution) }, after);
}

/** Items that grow while something goes on: `listeners` are called as they may have changed. */
export type Followed = { listeners: Set<() => void>; items(): readonly unknown[]; ended(): boolean };

/** `followed`'s items as SSE, numbered from 1: those after the `after`th, then each new one, until
 * it has ended and all are sent. A client that goes away stops its stream only. */
export function streamFollowed(c: Context, followed: Followed, after: number): Response {
  return streamSSE(c, async (stream) => {
    let next = after;
    let wake: (() => void) | undefined;
    const listener = () => wake?.();
    followed.listeners.add(listener);
    stream.onAbort(listener);
    try {
      while (!stream.aborted) {
        const items = followed.items();
        while (next < items.length) {
          const item = items[next++];
          // No `event:` name: the type is in the data, and EventSource's onmessage sees only unnamed events.
          await stream.writeSSE({ id: String(next), data: JSON.stringify(item) });
        }
        // Read after the writes: what came while they waited is sent before the end.
        if (followed.ended() && next >= followed.items().length) break;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      followed.listeners.delete(listener);
    }
  });
}
