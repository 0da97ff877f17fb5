// Anthropic's event stream read straight from the response's socket. The SDK reads it through a web
// ReadableStream and four async generators (bytes, lines, SSE messages, events): with a model's
// text deltas arriving one per packet, that is most of what a runner spends per delta beyond the
// socket itself (measured at 100 streams paced 50 ms apart: 50 against 31 µs of CPU per event).
// This reads the same events with the same meaning as the SDK's Stream: `ping` and unnamed events
// are skipped, an `error` event throws the SDK's APIError (so failures are classified alike), any
// other event's data is parsed as JSON. The SDK still makes the request and answers its failures.
import type { IncomingMessage } from "node:http";
import type Anthropic from "@anthropic-ai/sdk";
// The parser alone: the package index would load every wire schema into `harness run`.
import { createSseParser } from "@harness/protocol/sse-parser";
import { anthropicSdk } from "./anthropic-sdk.ts";
import { clip } from "./retry-policy.ts";

type RawEvent = Anthropic.RawMessageStreamEvent;

/** Parsed events waiting for the reader beyond this many pause the socket until it catches up. */
const QUEUED_EVENTS = 256;

/** The events of `res` (a 2xx text/event-stream answer), in order. The iteration throws when the
 * stream sends an error event or an event that is not JSON, or when the connection ends before the
 * body did (as fetch would: TypeError "terminated"; the signal's reason when `signal` aborted it).
 * Leaving the iteration early destroys the response. */
export function anthropicEvents(res: IncomingMessage, headers: Headers, signal?: AbortSignal): AsyncIterable<RawEvent> {
  let queue: RawEvent[] = [];
  let head = 0;
  let failure: { error: unknown } | undefined;
  let ended = false;
  let wake: (() => void) | undefined;

  const fail = (error: unknown) => {
    if (failure || ended) return;
    failure = { error };
    res.destroy();
    wakeReader();
  };
  const wakeReader = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const parser = createSseParser(({ event, data }) => {
    if (failure) return;
    // The parser names an unnamed event "message", which the API never sends: skipped, as the SDK does.
    if (event === "ping" || event === "message") return;
    if (event === "error") {
      const body = parseJson(data) ?? data;
      const type = typeof body === "object" && body !== null ? (body as { error?: { type?: unknown } }).error?.type : undefined;
      const { APIError } = anthropicSdk();
      const named = (typeof type === "string" ? type : undefined) as ConstructorParameters<typeof APIError>[4];
      fail(new APIError(undefined, body as object, undefined, headers, named));
      return;
    }
    if (data === "") return;
    const parsed = parseJson(data);
    if (typeof parsed === "object" && parsed !== null) queue.push(parsed as RawEvent);
    else fail(new SyntaxError(`the Anthropic API sent a ${event} event whose data is not a JSON object: ${clip(data)}`));
  });

  // The request's own abort reaches the socket only through the SDK's link to `signal`, which it
  // may let go of once the response is collected: the stream listens for itself.
  const onAbort = () => fail(signal?.reason);
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => {
    parser.push(chunk);
    if (queue.length - head > QUEUED_EVENTS) res.pause();
    wakeReader();
  });
  res.on("end", () => {
    ended = true;
    wakeReader();
  });
  // As fetch words it: the body is "terminated", with what node:http saw as the cause. A connection
  // cut mid-body may also close the response without an error of its own.
  const terminated = (cause: Error) => fail(signal?.aborted ? signal.reason : new TypeError("terminated", { cause }));
  res.on("error", terminated);
  res.on("close", () => {
    signal?.removeEventListener("abort", onAbort);
    if (!res.complete) terminated(new Error("other side closed"));
  });
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  // Closed before it was handed over (its close event is gone): nothing more will come.
  if (res.destroyed && !res.complete) terminated(res.errored ?? new Error("other side closed"));

  const next = async (): Promise<IteratorResult<RawEvent>> => {
    for (;;) {
      if (head < queue.length) {
        const value = queue[head++];
        if (head === queue.length) {
          queue = [];
          head = 0;
          if (res.isPaused() && !failure) res.resume();
        }
        return { value, done: false };
      }
      if (failure) throw failure.error;
      if (ended) return { value: undefined, done: true };
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  return {
    [Symbol.asyncIterator]: () => ({
      next,
      async return() {
        if (!ended) {
          ended = true;
          res.destroy();
        }
        return { value: undefined, done: true };
      },
    }),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
