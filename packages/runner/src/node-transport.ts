// The runner client's HTTP over node:http, for hosts that run on Node (the server). A run's event
// stream is read straight off the socket: no web streams, no promise per chunk while the reader is
// busy, and what arrived while it was busy comes as one piece.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import type { RunnerTransport, TransportResponse } from "./transport.ts";

/** An answer that is not being read pauses its socket once this many chunks wait. */
const HIGH_WATER_CHUNKS = 64;

/** A connection per request (no keep-alive pool): a request never meets a connection the runner
 * has just timed out, and runs' event streams hold their connection for the run anyway. */
export function nodeTransport(): RunnerTransport {
  return (url, request) =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { ...request.headers };
      if (request.body !== undefined) headers["content-length"] = Buffer.byteLength(request.body);
      const req = httpRequest(url, { method: request.method, headers, agent: false, signal: request.signal });
      let answered: ReturnType<typeof answer> | undefined;
      req.on("error", (error) => (answered ? answered.fail(error) : reject(error)));
      req.once("response", (res) => {
        res.setEncoding("utf8");
        answered = answer(req, res);
        resolve(answered.response);
      });
      req.end(request.body);
    });
}

function answer(req: ClientRequest, res: IncomingMessage): { response: TransportResponse; fail(error: Error): void } {
  const queue: string[] = [];
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
    if (queue.length >= HIGH_WATER_CHUNKS) res.pause();
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
    queue.length = 0;
    if (!ended) req.destroy();
  };
  const chunks = (): AsyncIterator<string> => ({
    async next() {
      for (;;) {
        if (queue.length > 0) {
          const value = queue.length === 1 ? queue[0] : queue.join("");
          queue.length = 0;
          if (res.isPaused()) res.resume();
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
