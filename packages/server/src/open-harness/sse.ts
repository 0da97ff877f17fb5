// An execution's events as SSE: those after Last-Event-ID (all, without it), then live ones, until
// `done`. A client that goes away stops its stream only, never the execution.
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { Execution } from "./executions.ts";

export function streamExecution(c: Context, execution: Execution, after = 0): Response {
  c.header("x-execution-id", execution.id);
  return streamSSE(c, async (stream) => {
    let next = after;
    let wake: (() => void) | undefined;
    const listener = () => wake?.();
    execution.listeners.add(listener);
    stream.onAbort(listener);
    try {
      while (!stream.aborted) {
        while (next < execution.events.length) {
          const event = execution.events[next++];
          // No `event:` name: the type is in the data, and EventSource's onmessage sees only unnamed events.
          await stream.writeSSE({ id: String(next), data: JSON.stringify(event) });
        }
        if (execution.watch.finished && next >= execution.events.length) break;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      execution.listeners.delete(listener);
    }
  });
}
