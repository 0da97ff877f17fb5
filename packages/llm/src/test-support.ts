// Helpers shared by this package's tests: draining a provider stream and picking events out of it.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";
import type { ModelEvent } from "./types.ts";

export type Done = Extract<ModelEvent, { type: "done" }>;
export type Retry = Extract<ModelEvent, { type: "retry" }>;

export async function collect(events: AsyncIterable<ModelEvent>, onEvent?: (e: ModelEvent) => void): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) {
    out.push(event);
    onEvent?.(event);
  }
  return out;
}

export function lastDone(events: ModelEvent[]): Done {
  const last = events.at(-1);
  assert.equal(last?.type, "done", "the stream ends with a done event");
  assert.equal(events.filter((e) => e.type === "done").length, 1, "exactly one done event");
  return last as Done;
}

export const retries = (events: ModelEvent[]): Retry[] => events.filter((e): e is Retry => e.type === "retry");

export const textOf = (events: ModelEvent[]): string => events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");

export const thinkingOf = (events: ModelEvent[]): string[] => events.flatMap((e) => (e.type === "thinking-delta" ? [e.text] : []));

/** A server whose one answer is an event stream written as `chunks`, a pause between each; with
 * `cut`, the connection is destroyed after the last chunk instead of the body ending. */
export async function eventStream(t: TestContext, chunks: (string | Buffer)[], options: { cut?: boolean; hold?: Promise<void> } = {}) {
  let closed = false;
  const server = http.createServer(async (_req, res) => {
    res.on("close", () => (closed = true));
    res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_1" });
    for (const chunk of chunks) {
      res.write(chunk);
      await new Promise((r) => setTimeout(r, 2));
    }
    await options.hold;
    if (options.cut) res.socket?.destroy();
    else res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http.get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, resolve).on("error", reject),
  );
  const headers = new Headers(res.headers as Record<string, string>);
  return { res, headers, closed: () => closed };
}

/** Every item of `events`, and the error that ended them, if one did. */
export async function collectOrError(events: AsyncIterable<unknown>): Promise<{ events: unknown[]; error?: unknown }> {
  const out: unknown[] = [];
  try {
    for await (const event of events) out.push(event);
    return { events: out };
  } catch (error) {
    return { events: out, error };
  }
}
