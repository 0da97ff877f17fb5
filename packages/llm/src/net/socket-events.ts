// A model's event stream read straight from the response's socket. The SDKs read it through a web
// ReadableStream and several async generators (bytes, lines, SSE messages, events): with a model's
// text deltas arriving one per packet, that is most of what a runner spends per delta beyond the
// socket itself (measured with the Anthropic SDK, 100 streams paced 50 ms apart: 50 against 31 µs
// of CPU per event). Each provider says what its events mean (anthropic/events.ts,
// openai/events.ts); the SDK still makes the request and answers its failures.
import type { IncomingMessage } from "node:http";
import type { EventStreamInit } from "./http-fetch.ts";
// The parser alone: the package index would load every wire schema into `harness run`.
import { createSseParser, type SseMessage } from "@harness/protocol/sse-parser";

/** What one SSE message is to a provider: an event, the end of the reply (nothing after it is
 * read; an event may come with it, the reply's last), a failure that ends the stream, or nothing
 * (undefined: skipped). */
export type Decoded<T> = { event: T; end?: true } | { end: true } | { error: unknown } | undefined;

/** Parsed events waiting for the reader beyond this many pause the socket until it catches up. */
const QUEUED_EVENTS = 256;

/** After the reply said it was whole, the rest of the body is read for this long so that the
 * connection can be kept; a server that does not end it by then has its connection closed. */
const END_GRACE_MS = 2_000;

export type SocketEventsOptions = {
  /** An event the body ends in without its closing blank line is still decoded (as the OpenAI SDK
   * does; the Anthropic SDK drops it). */
  takeUnfinishedLast?: boolean;
  /** Default END_GRACE_MS. */
  endGraceMs?: number;
  /** Called for every chunk of the body, whatever it holds (keep-alives included). */
  onData?: () => void;
};

/** The events `decode` makes of `res` (a 2xx text/event-stream answer), in order. The iteration
 * throws a decoded error, or, when the connection ends before the body did, what fetch would
 * (TypeError "terminated"; the signal's reason when `signal` aborted it). Leaving the iteration
 * early destroys the response. */
export function socketEvents<T>(
  res: IncomingMessage,
  signal: AbortSignal | undefined,
  decode: (message: SseMessage) => Decoded<T>,
  options: SocketEventsOptions = {},
): AsyncIterable<T> {
  let queue: T[] = [];
  let head = 0;
  let failure: { error: unknown } | undefined;
  let ended = false;
  /** The reply said it was whole: what follows on the socket is read to its end and ignored. */
  let finished = false;
  let wake: (() => void) | undefined;

  const fail = (error: unknown) => {
    if (failure || ended) return;
    res.destroy();
    // After the end of the reply nothing can fail it any more: what remained is let go of.
    if (finished) return;
    failure = { error };
    wakeReader();
  };
  const wakeReader = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };

  const parser = createSseParser((message) => {
    if (failure || finished) return;
    const decoded = decode(message);
    if (decoded === undefined) return;
    if ("event" in decoded) queue.push(decoded.event);
    if ("end" in decoded) {
      finished = true;
      // Cleared as soon as the body ends: the timer would otherwise hold the response, its socket's
      // request and what the stream decoded for the whole grace, run after run.
      const grace = setTimeout(() => {
        if (!res.complete) res.destroy();
      }, options.endGraceMs ?? END_GRACE_MS).unref();
      const clear = () => clearTimeout(grace);
      res.once("end", clear);
      res.once("close", clear);
    } else if ("error" in decoded) fail(decoded.error);
  });

  // The request's own abort reaches the socket only through the SDK's link to `signal`, which it
  // may let go of once the response is collected: the stream listens for itself.
  const onAbort = () => fail(signal?.reason);
  res.setEncoding("utf8");
  const onData = options.onData;
  res.on("data", (chunk: string) => {
    onData?.();
    parser.push(chunk);
    if (queue.length - head > QUEUED_EVENTS) res.pause();
    wakeReader();
  });
  res.on("end", () => {
    if (options.takeUnfinishedLast && !failure && !finished) parser.finish();
    ended = true;
    wakeReader();
  });
  // As fetch words it: the body is "terminated", with what node:http saw as the cause. A connection
  // cut mid-body may also close the response without an error of its own.
  const terminated = (cause: Error) => fail(signal?.aborted ? signal.reason : new TypeError("terminated", { cause }));
  res.on("error", (error) => {
    if (!finished) terminated(error);
  });
  res.on("close", () => {
    signal?.removeEventListener("abort", onAbort);
    if (!res.complete && !finished) terminated(new Error("other side closed"));
    else if (finished) wakeReader();
  });
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  // Closed before it was handed over (its close event is gone): nothing more will come.
  if (res.destroyed && !res.complete && !finished) terminated(res.errored ?? new Error("other side closed"));

  const next = async (): Promise<IteratorResult<T>> => {
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
      if (ended || finished) return { value: undefined, done: true };
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  return {
    [Symbol.asyncIterator]: () => ({
      next,
      async return() {
        if (!ended) {
          ended = true;
          if (!res.complete) res.destroy();
        }
        return { value: undefined, done: true };
      },
    }),
  };
}

/** Sends a streaming request with `send`, whose fetch options ask httpFetch for the event stream's
 * socket; `check` vets the answer. Resolves to the events `read` makes of that socket or, where
 * httpFetch did not make the request, to the SDK's own stream. A socket handed over before a
 * failure is destroyed: nobody will read it, and it must not hold its connection. */
export async function openEventStream<T>(
  send: (fetchOptions: EventStreamInit) => Promise<{ data: AsyncIterable<T>; response: Response }>,
  check: (response: Response) => Promise<void>,
  read: (socket: IncomingMessage, headers: Headers) => AsyncIterable<T>,
): Promise<AsyncIterable<T>> {
  let socket: IncomingMessage | undefined;
  try {
    const { data, response } = await send({ onEventStream: (res) => (socket = res) });
    await check(response);
    return socket ? read(socket, response.headers) : data;
  } catch (error) {
    socket?.destroy();
    throw error;
  }
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
