// The fetch the model SDKs are given: node:http(s) with kept-alive connections, and a Response whose
// body is fed straight from the socket. Node's own fetch (undici) builds web requests, headers and
// streams around every call and every chunk; for a reply streamed as many small SSE events that
// costs a runner about a third more CPU per event (measured: 134 against 94 µs of the main thread
// per event read through the Anthropic SDK, events 2 ms apart). Requests this one does not handle
// (a Request object, a body that is not text or bytes, a scheme other than http and https) go to the
// global fetch, and so does every request when a proxy is set in the environment (the global fetch
// is the one that knows how to use it); a redirect is followed by sending the request again there.
import http from "node:http";
import https from "node:https";

/** A kept connection left idle is closed after this long: before the keep-alive timeouts servers
 * commonly use (5 s for Node's), so a request does not meet a connection the server is closing. A
 * connection in use is never timed out (a model may think in silence for minutes). */
const IDLE_CONNECTION_MS = 4_000;

const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
  "https:": new https.Agent({ keepAlive: true, timeout: IDLE_CONNECTION_MS }),
};

/** Read once: the environment of a runner does not change. */
const PROXY_SET = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"].some((name) => process.env[name]);

/** Statuses whose Response may not have a body (a 1xx never reaches "response"). */
const NULL_BODY = new Set([204, 205, 304]);

/** Redirects are left to the global fetch, which follows them as fetch does. */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** At most this many chunks wait in a body nobody reads before the socket is paused. */
const QUEUED_CHUNKS = 64;

/** A fetch init this fetch also understands: when the answer is a 2xx event stream, `onEventStream`
 * is handed the response as node:http gives it, and the Response comes with no body. Whoever set
 * it reads the events from the socket without the web streams between (the providers, through
 * socket-events.ts), and must read the response to its end or destroy it. The global fetch, used
 * where this one does not handle a request, ignores it: the Response then has its body as usual. */
export type EventStreamInit = RequestInit & { onEventStream?: (res: http.IncomingMessage) => void };

export function httpFetch(input: string | URL | Request, init: EventStreamInit = {}): Promise<Response> {
  if (PROXY_SET || input instanceof Request) return fetch(input, init);
  const url = new URL(String(input));
  const body = init.body;
  const plain = body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
  if (!plain || (url.protocol !== "http:" && url.protocol !== "https:")) return fetch(input, init);
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  let req: http.ClientRequest;
  try {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const send = url.protocol === "https:" ? https.request : http.request;
    req = send(url, { method: init.method ?? "GET", headers, agent: agents[url.protocol as "http:" | "https:"] });
  } catch (error) {
    // As fetch: a request that cannot be made (a header value with a line break, say) rejects.
    return Promise.reject(error);
  }
  req.end(body ?? undefined);
  // Only the closures below live as long as the reply: they reach the request (needed again for a
  // redirect) through this variable, dropped once the answer came, so a long reply does not keep
  // its request body (tens of KB per model call) alive and promoted into the old generation.
  let request: { input: string | URL; init: RequestInit } | undefined = { input, init };
  return answer(req, signal, init.onEventStream, () => {
    const again = request;
    request = undefined;
    return again;
  });
}

function answer(
  req: http.ClientRequest,
  signal: AbortSignal | undefined,
  onEventStream: EventStreamInit["onEventStream"],
  takeRequest: () => { input: string | URL; init: RequestInit } | undefined,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    let answered = false;
    const onAbort = () => req.destroy(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => signal?.removeEventListener("abort", onAbort);

    req.on("error", (error) => {
      takeRequest();
      done();
      // As fetch: an abort rejects with the signal's reason, anything else is "fetch failed".
      if (!answered) reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    req.on("response", (res) => {
      answered = true;
      const sent = takeRequest();
      const status = res.statusCode ?? 0;
      // A Response can only say 200–599; fetch fails on anything else a server sends.
      if (status < 200 || status > 599) {
        res.destroy();
        done();
        reject(new TypeError("fetch failed", { cause: new Error(`the server answered with status ${status}`) }));
        return;
      }
      if (REDIRECTS.has(status) && res.headers.location && sent) {
        res.destroy();
        done();
        resolve(fetch(sent.input, sent.init));
        return;
      }
      const responseHeaders = new Headers();
      for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) {
        try {
          responseHeaders.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
        } catch {
          // A header the web Headers class refuses (a bad name or value) is left out.
        }
      }
      res.on("end", done);
      res.on("close", done);
      if (NULL_BODY.has(status)) {
        res.resume();
        resolve(new Response(null, { status, statusText: res.statusMessage ?? "", headers: responseHeaders }));
        return;
      }
      if (onEventStream && status < 300 && /^text\/event-stream\b/i.test(res.headers["content-type"] ?? "")) {
        onEventStream(res);
        resolve(new Response(null, { status, statusText: res.statusMessage ?? "", headers: responseHeaders }));
        return;
      }
      let ended = false;
      const stream = new ReadableStream<Uint8Array>(
        {
          start(controller) {
            const fail = (cause?: Error) => {
              if (ended) return;
              ended = true;
              controller.error(signal?.aborted ? signal.reason : new TypeError("terminated", cause && { cause }));
            };
            res.on("data", (chunk: Buffer) => {
              if (ended) return;
              controller.enqueue(chunk);
              if ((controller.desiredSize ?? 1) <= 0) res.pause();
            });
            res.on("end", () => {
              if (ended) return;
              ended = true;
              controller.close();
            });
            res.on("error", fail);
            // A connection cut mid-body may close the response without an error of its own.
            res.on("close", () => {
              if (!res.complete) fail(new Error("other side closed"));
            });
          },
          pull() {
            res.resume();
          },
          cancel() {
            ended = true;
            res.destroy();
          },
        },
        { highWaterMark: QUEUED_CHUNKS },
      );
      resolve(new Response(stream, { status, statusText: res.statusMessage ?? "", headers: responseHeaders }));
    });
  });
}
