// What the fake model servers share: a real HTTP server on 127.0.0.1 that records requests in
// arrival order, answers them from a queue of scripted replies, lets tests wait for requests and
// cuts every open stream on close(); plus the JSON and SSE writing both wire formats use.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type RequestBody = Record<string, unknown>;

export type RecordedRequest = {
  method: string;
  /** The path without its query string, e.g. "/v1/messages". */
  path: string;
  /** The path with its query string, as the client sent it. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body. Typed loosely on purpose: tests read deep into what the client sent. */
  body: any;
  /** When the request's headers arrived (before its body was read): milliseconds since the epoch with sub-millisecond precision (performance.timeOrigin + performance.now()). */
  at: number;
};

/** The text of a message reply and its pacing, alike in both wire formats. */
export type ScriptedText = {
  /** A string is sent as one text delta; an array as one delta per element. */
  text?: string | string[];
  /** Lazily produced deltas, each written as soon as it is produced (benchmarks embed send times). */
  textChunks?: () => Iterable<string> | AsyncIterable<string>;
  /** Pause between SSE events. */
  delayMs?: number;
  /** After the text, wait for this before finishing the message (for cancel tests). */
  hold?: Promise<unknown>;
  /** While held, a keep-alive every this many ms (Anthropic: a ping event; chat completions: an SSE
   * comment), as servers send while a reply is prepared. */
  keepAliveMs?: number;
};

/** Waits for `reply.hold`, writing `keepAlive` every `reply.keepAliveMs` meanwhile. */
export async function held(reply: { hold?: Promise<unknown>; keepAliveMs?: number }, res: ServerResponse, keepAlive: string): Promise<void> {
  if (!reply.hold) return;
  const timer = reply.keepAliveMs ? setInterval(() => res.destroyed || res.write(keepAlive), reply.keepAliveMs) : undefined;
  try {
    await reply.hold.then(undefined, () => undefined);
  } finally {
    clearInterval(timer);
  }
}

/** One request as it arrived, before its body was read. */
export type Incoming = {
  req: IncomingMessage;
  res: ServerResponse;
  /** The path with its query string. */
  url: string;
  /** The path without its query string. */
  path: string;
  /** See RecordedRequest.at. */
  at: number;
};

/** The replies a fake is scripted with. */
export type ScriptedReplies<R> = {
  replies?: R[];
  /** Consulted first for every request that takes a scripted reply; returning undefined falls back to the queue. */
  respond?: (request: RecordedRequest, index: number) => R | undefined;
  /** Default true. False keeps no request in `requests`: they are still numbered and counted, and
   * waitForRequests still waits for them (and resolves with an empty list). A long benchmark's
   * fake then holds no request bodies in memory. */
  keepRequests?: boolean;
};

/** What a test does with a running fake. */
export type FakeModelServer<R> = {
  /** Queues more replies. */
  push(...replies: R[]): void;
  /** Resolves with the first n recorded requests once there are n; rejects after timeoutMs (default 10 s). */
  waitForRequests(n: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  /** Stops the server, cutting any stream still open. */
  close(): Promise<void>;
};

export type FakeServer<R> = FakeModelServer<R> & {
  /** http://127.0.0.1:PORT */
  origin: string;
  /** The recorded requests, in arrival order. */
  requests: RecordedRequest[];
  /** Records a request; returns its index. */
  record(request: RecordedRequest): number;
  /** The reply to recorded request `index`: `respond`'s, else the next queued one. Without one,
   * answers 500 saying so and returns undefined. */
  replyTo(request: RecordedRequest, index: number, res: ServerResponse): R | undefined;
};

export type FakeServerOptions<R> = ScriptedReplies<R> & {
  /** Starts every error message, e.g. "fake-openai". */
  name: string;
  /** What one scripted reply answers, for the error when none is left, e.g. "chat-completions". */
  requestKind: string;
  handle(incoming: Incoming, server: FakeServer<R>): Promise<void>;
  /** Answers 500 with `message`, in the fake's wire format. */
  sendServerError(res: ServerResponse, message: string): void;
};

type Waiter = { n: number; resolve: (r: RecordedRequest[]) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

export async function startFakeServer<R>(options: FakeServerOptions<R>): Promise<FakeServer<R>> {
  const { name } = options;
  const queue: R[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const keep = options.keepRequests !== false;
  let count = 0;
  const waiters = new Set<Waiter>();
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const at = performance.timeOrigin + performance.now();
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    options.handle({ req, res, url, path, at }, fake).catch((err: unknown) => {
      const message = `${name}: ${err instanceof Error ? err.message : String(err)}`;
      if (!res.headersSent) options.sendServerError(res, message);
      else res.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  const fake: FakeServer<R> = {
    origin: "",
    requests,
    record(request) {
      if (keep) requests.push(request);
      count++;
      for (const w of waiters) {
        if (count < w.n) continue;
        waiters.delete(w);
        clearTimeout(w.timer);
        w.resolve(requests.slice(0, w.n));
      }
      return count - 1;
    },
    replyTo(request, index, res) {
      const reply = options.respond?.(request, index) ?? queue.shift();
      if (reply === undefined) {
        options.sendServerError(res, `${name}: no scripted reply left for request ${index + 1} (each ${options.requestKind} request takes one reply)`);
      }
      return reply;
    },
    push(...replies) {
      queue.push(...replies);
    },
    waitForRequests(n, timeoutMs = 10_000) {
      if (count >= n) return Promise.resolve(requests.slice(0, n));
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          n,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`${name}: waited ${timeoutMs} ms for ${n} requests, got ${count}`));
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const w of waiters) {
          clearTimeout(w.timer);
          w.reject(new Error(`${name}: closed while waiting for ${w.n} requests, got ${count}`));
        }
        waiters.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** The request as recorded, with its parsed body. */
export function recordOf(incoming: Incoming, body: unknown): RecordedRequest {
  const { req, path, url, at } = incoming;
  return { method: req.method ?? "POST", path, url, headers: { ...req.headers }, body, at };
}

export async function readJson(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string>): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function startSse(res: ServerResponse, headers: Record<string, string>): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", ...headers });
}

/** Writes one SSE event in one syscall. Returns a promise only when the caller must wait
 * (backpressure, or delayMs between events), so the common path allocates nothing per event. */
export function emitter(res: ServerResponse, delayMs: number | undefined): (event: string) => Promise<void> | undefined {
  return (event) => {
    if (res.destroyed) return undefined;
    const flowing = writeWhole(res, event);
    if (flowing && !delayMs) return undefined;
    const ready = flowing ? Promise.resolve() : drained(res);
    return delayMs ? ready.then(() => new Promise<void>((resolve) => setTimeout(resolve, delayMs))) : ready;
  };
}

/** res.write sends a chunk's size line, data and terminator as three socket writes; with its
 * socket corked they leave as one (a real server's event is one packet, one wakeup of the reader). */
export function writeWhole(res: ServerResponse, text: string): boolean {
  const socket = res.socket;
  socket?.cork();
  const flowing = res.write(text);
  socket?.uncork();
  return flowing;
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** The text a reply gives as a string or as an array of pieces, as pieces ("" is none). */
export function parts(value: string | string[] | undefined): string[] {
  if (value === undefined || value === "") return [];
  return Array.isArray(value) ? value : [value];
}


/** Streams a reply's text, its static pieces and then its lazily produced ones, each as the event
 * `event` makes of it. Returns the characters sent, or undefined when the client went away. */
export async function streamText(
  reply: ScriptedText,
  send: (event: string) => Promise<void> | undefined,
  res: ServerResponse,
  event: (text: string) => string,
): Promise<number | undefined> {
  let chars = 0;
  for (const text of parts(reply.text)) {
    if (res.destroyed) return undefined;
    chars += text.length;
    const wait = send(event(text));
    if (wait) await wait;
  }
  if (reply.textChunks) {
    for await (const text of reply.textChunks()) {
      if (res.destroyed) return undefined;
      chars += text.length;
      const wait = send(event(text));
      if (wait) await wait;
    }
  }
  return chars;
}

/** A reply's whole text, for a stream:false answer. */
export async function wholeText(reply: ScriptedText): Promise<string> {
  let text = parts(reply.text).join("");
  if (reply.textChunks) for await (const chunk of reply.textChunks()) text += chunk;
  return text;
}

/** Splits JSON text into `chunks` pieces of near-equal length (fewer when the text is shorter). */
export function splitIntoChunks(text: string, chunks: number): string[] {
  if (chunks <= 0) return [];
  const n = Math.max(1, Math.min(chunks, text.length));
  const size = Math.ceil(text.length / n);
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces.length > 0 ? pieces : [""];
}
