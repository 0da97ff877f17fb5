// The runner client's HTTP over node:http, for hosts that run on Node (the server). A run's event
// stream is read straight off the socket: no web streams, and no promise per chunk while the reader
// is busy with the ones already there.
import { Agent, request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import type { RunnerTransport, TransportResponse } from "./transport.ts";
import { socketPathOf } from "../unix-socket.ts";

/** An answer that is not being read pauses its socket once this many characters wait. */
const HIGH_WATER = 1024 * 1024;
/** Chunks waiting are handed over together up to about this many characters. */
const JOIN_LIMIT = 64 * 1024;

/** How long a runner keeps a connection its client left idle (runner-main.ts). */
export const RUNNER_KEEP_ALIVE_MS = 30_000;
/** A connection left idle in the pool is closed after this long: well before a runner closes an
 * idle connection on its side (RUNNER_KEEP_ALIVE_MS), so a request never meets a connection the
 * runner is closing. A connection in use never times out (a run may stay silent for minutes). */
const IDLE_CONNECTION_MS = 2_000;
/** How long an answer the reader let go of may take to end before its connection is cut (an ended
 * answer leaves its connection for the next request). */
const DRAIN_MS = 1_000;

/** Connections are kept and reused: a run costs no new connection to its runner. `agent`: the pool
 * they are kept in; by default one of its own. Reaches runners at http:// and http+unix:// URLs. */
export function nodeTransport(agent: Agent = new Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS })): RunnerTransport {
  return (url, request) =>
    new Promise((resolve, reject) => {
      const { signal } = request;
      if (signal?.aborted) return reject(signal.reason);
      const headers: Record<string, string | number> = { ...request.headers };
      // Encoded once: a query carries the session's transcript (megabytes in a long session), and
      // a string body is measured for its length here and again by end(), then encoded to write.
      const body = request.body === undefined ? undefined : Buffer.from(request.body);
      if (body !== undefined) headers["content-length"] = body.length;
      const target = new URL(url);
      const socketPath = socketPathOf(target);
      const req = socketPath
        ? httpRequest({ socketPath, path: `${target.pathname}${target.search}`, method: request.method, headers, agent })
        : httpRequest(target, { method: request.method, headers, agent });
      // The signal is followed here rather than given to http.request, which listens until the
      // request closes: a run's stream is let go of as soon as its last event is read, often just
      // before the end of its body arrives, and an abort then would destroy a connection that is
      // about to go back to the pool (every other run then paid for a new one).
      const onAbort = () => req.destroy(signal?.reason);
      signal?.addEventListener("abort", onAbort, { once: true });
      const release = () => signal?.removeEventListener("abort", onAbort);
      req.once("close", release);
      let answered: ReturnType<typeof answer> | undefined;
      req.on("error", (error) => (answered ? answered.fail(error) : reject(error)));
      req.once("response", (res) => {
        res.setEncoding("utf8");
        answered = answer(req, res, release);
        resolve(answered.response);
      });
      req.end(body);
    });
}

/** `release` stops following the request's signal: called once the answer is let go of. */
function answer(req: ClientRequest, res: IncomingMessage, release: () => void): { response: TransportResponse; fail(error: Error): void } {
  const queue: string[] = [];
  let head = 0;
  let waiting = 0;
  let ended = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const fail = (error: Error) => {
    failure ??= error;
    notify();
  };
  res.on("data", (chunk: string) => {
    queue.push(chunk);
    waiting += chunk.length;
    if (waiting >= HIGH_WATER) res.pause();
    notify();
  });
  res.on("end", () => {
    ended = true;
    notify();
  });
  res.on("error", fail);
  res.on("close", () => {
    if (!ended) fail(new Error("the connection closed before the answer ended"));
  });

  const cancel = () => {
    release();
    queue.length = 0;
    head = 0;
    waiting = 0;
    if (ended) return;
    // What still comes is dropped; an answer that ends soon gives its connection back to the pool.
    res.removeAllListeners("data");
    res.resume();
    const cut = setTimeout(() => req.destroy(), DRAIN_MS);
    cut.unref();
    res.once("end", () => clearTimeout(cut));
  };
  const chunks = (): AsyncIterator<string> => ({
    async next() {
      for (;;) {
        if (head < queue.length) {
          // What is waiting, joined up to about 64 KiB: a chunk is often a single event (a chunk of
          // the chunked encoding), and a reader that fell behind does not build one huge string.
          let value = queue[head++];
          while (head < queue.length && value.length < JOIN_LIMIT) value += queue[head++];
          if (head === queue.length) {
            queue.length = 0;
            head = 0;
          }
          waiting -= value.length;
          if (res.isPaused() && waiting < HIGH_WATER / 4) res.resume();
          return { done: false, value };
        }
        if (failure) throw failure;
        if (ended) return { done: true, value: undefined };
        await new Promise<void>((resolve) => (wake = resolve));
      }
    },
    async return() {
      cancel();
      return { done: true, value: undefined };
    },
  });
  const text = async () => {
    const it = chunks();
    let all = "";
    for (let step = await it.next(); !step.done; step = await it.next()) all += step.value;
    return all;
  };
  return { response: { status: res.statusCode ?? 0, text, chunks, cancel }, fail };
}
