// The fetch the model SDKs and every other request made for a run are given: node:http(s) with
// kept-alive connections, and a Response whose body is fed straight from the socket. Node's own
// fetch (undici) builds web requests, headers and streams around every call and every chunk; for a
// reply streamed as many small SSE events that costs a runner about a third more CPU per event
// (measured: 134 against 94 µs of the main thread per event read through the Anthropic SDK, events
// 2 ms apart). Node's fetch also ignores HTTPS_PROXY unless the process started with
// NODE_USE_ENV_PROXY=1, and a run's environment is not always the process's: here the agents are
// built from the run's proxy variables (proxy-env.ts) and TLS variables (tls-env.ts: the extra CA
// file, the client certificate), so every request honours them. A request
// given as a Request, or with a body that is not text or bytes, is read into one that is first;
// redirects are followed as fetch follows them; only schemes other than http and https go to the
// global fetch.
import http from "node:http";
import https from "node:https";
import { certificateError } from "./certificate-error.ts";
import { redirectStep } from "./http-redirect.ts";
import { RecentCache } from "./recent-cache.ts";
import { type ProxyEnv, type ProxyEnvResult, proxyEnvOf } from "./proxy-env.ts";
import { proxyHostOf, secureProxyOf } from "./proxy-tls.ts";
import type { EnvLike } from "../settings.ts";
import { type TlsEnv, type TlsEnvResult, tlsEnvOf } from "./tls-env.ts";

/** A kept connection left idle is closed after this long: before the keep-alive timeouts servers
 * commonly use (5 s for Node's), so a request does not meet a connection the server is closing. A
 * connection in use is never timed out (a model may think in silence for minutes). */
const IDLE_CONNECTION_MS = 4_000;

/** `extraCaFile`: the NODE_EXTRA_CA_CERTS the https agent trusts, to name when a certificate is refused. */
type Agents = { "http:": http.Agent; "https:": https.Agent; extraCaFile: string | undefined };

/** Statuses whose Response may not have a body (a 1xx never reaches "response"). */
const NULL_BODY = new Set([204, 205, 304]);

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** At most this many chunks wait in a body nobody reads before the socket is paused. */
const QUEUED_CHUNKS = 64;

/** A fetch init this fetch also understands: when the answer is a 2xx event stream, `onEventStream`
 * is handed the response as node:http gives it, and the Response comes with no body. Whoever set
 * it reads the events from the socket without the web streams between (the providers, through
 * socket-events.ts), and must read the response to its end or destroy it. */
export type EventStreamInit = RequestInit & { onEventStream?: (res: http.IncomingMessage) => void };

export type HttpFetch = (input: string | URL | Request, init?: EventStreamInit) => Promise<Response>;

/** One fetch per distinct proxy and TLS setting, kept, so that runs alike share their connections:
 * for the newest few, as each change of a TLS file makes new settings. A fetch dropped closes its
 * idle connections; whoever still holds it can use it, and its requests in flight go on (their
 * connections close once idle for IDLE_CONNECTION_MS). */
const fetches = new RecentCache<string, { fetch: HttpFetch; agents: Agents }>(16, ({ agents }) => {
  for (const agent of [agents["http:"], agents["https:"]]) closeIdle(agent);
});

/** The fetch for requests made on behalf of a run whose environment is `env`: through the proxy its
 * HTTPS_PROXY / HTTP_PROXY / ALL_PROXY name, except to the hosts NO_PROXY lists, trusting the CAs
 * of its NODE_EXTRA_CA_CERTS and presenting the client certificate of its CLAUDE_CODE_CLIENT_CERT,
 * CLAUDE_CODE_CLIENT_KEY and CLAUDE_CODE_CLIENT_KEY_PASSPHRASE. With one of these that is not
 * usable, every request fails ("fetch failed") with the reason as its cause; callers that can say
 * so sooner check networkProblem(env) first. */
export function fetchFor(env: EnvLike): HttpFetch {
  const checked = proxyEnvOf(env);
  const tls = tlsEnvOf(env);
  if (!checked.ok) return failing(checked.error);
  if (!tls.ok) return failing(tls.error);
  const key = keyOf(checked, tls);
  let found = fetches.get(key);
  if (!found) {
    const agents = agentsFor(checked.value, tls.value);
    found = { fetch: (input, init = {}) => start(agents, input, init), agents };
    fetches.set(key, found);
  }
  return found.fetch;
}

/** A fetch whose every request fails as fetch fails, `problem` its cause. */
function failing(problem: string): HttpFetch {
  const cause = new Error(problem);
  return () => Promise.reject(new TypeError("fetch failed", { cause }));
}

function closeIdle(agent: http.Agent): void {
  for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
}

/** What fetchFor(env) depends on: equal for two environments whose fetches are the same, so that
 * whoever keeps something made with one (a model SDK client) can tell when it may be shared. */
export function fetchKeyOf(env: EnvLike): string {
  return keyOf(proxyEnvOf(env), tlsEnvOf(env));
}

function keyOf(proxy: ProxyEnvResult, tls: TlsEnvResult): string {
  return JSON.stringify([proxy.ok ? proxy.value : proxy.error, tls.ok ? tls.value.id : tls.error]);
}

/** The fetch of this process's own environment, as fetchFor(process.env) at each request: so a CA
 * or certificate file that changes is read again, as it is for a run (a stat of each file: some
 * 7 µs a request). */
export function httpFetch(input: string | URL | Request, init: EventStreamInit = {}): Promise<Response> {
  return fetchFor(process.env)(input, init);
}

function agentsFor(proxyEnv: ProxyEnv, tls: TlsEnv): Agents {
  // Node proxies only with a proxyEnv that names a proxy: without one these are plain agents.
  const options = { keepAlive: true, timeout: IDLE_CONNECTION_MS, proxyEnv: { ...proxyEnv } };
  const { ca, cert, key, passphrase } = tls;
  const secure = { ...(ca && { ca }), ...(cert && key && { cert, key }), ...(passphrase !== undefined && { passphrase }) };
  const agents = {
    "http:": new http.Agent(options),
    "https:": new https.Agent({ ...options, ...secure }),
    extraCaFile: tls.extraCaFile ?? process.env.NODE_EXTRA_CA_CERTS,
  };
  secureProxyOf(agents["http:"], proxyEnv.HTTP_PROXY, ca);
  secureProxyOf(agents["https:"], proxyEnv.HTTPS_PROXY, ca);
  return agents;
}

function start(agents: Agents, input: string | URL | Request, init: EventStreamInit): Promise<Response> {
  if (input instanceof Request || !plainBody(init.body)) return readRequest(input, init).then((read) => send(agents, read.url, read.init, 0));
  let url: URL;
  try {
    url = new URL(String(input));
  } catch (error) {
    return Promise.reject(new TypeError("Failed to parse URL", { cause: error }));
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return fetch(input, init);
  return send(agents, url, init, 0);
}

function plainBody(body: RequestInit["body"]): boolean {
  return body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array;
}

/** The request `fetch(input, init)` would send, with its body read into bytes and its headers
 * (a form's content type, say) made explicit. */
async function readRequest(input: string | URL | Request, init: EventStreamInit): Promise<{ url: URL; init: EventStreamInit }> {
  const streamed = init.body instanceof ReadableStream;
  const request = new Request(input, streamed ? ({ ...init, duplex: "half" } as RequestInit) : init);
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
  const signal = init.signal ?? (input instanceof Request ? input.signal : undefined);
  return {
    url: new URL(request.url),
    init: {
      ...init,
      method: request.method,
      headers: request.headers,
      body,
      redirect: request.redirect,
      ...(signal && { signal }),
    },
  };
}

function send(agents: Agents, url: URL, init: EventStreamInit, hops: number): Promise<Response> {
  if (url.protocol !== "http:" && url.protocol !== "https:") return fetch(url, init);
  const body = init.body as string | Uint8Array | null | undefined;
  const signal = init.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  let req: http.ClientRequest;
  try {
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const open = url.protocol === "https:" ? https.request : http.request;
    req = open(url, { method: init.method ?? "GET", headers, agent: agents[url.protocol as "http:" | "https:"] });
  } catch (error) {
    // As fetch: a request that cannot be made (a header value with a line break, say) rejects.
    return Promise.reject(error);
  }
  req.end(body ?? undefined);
  // Only the closures below live as long as the reply: they reach the request (needed again for a
  // redirect) through this variable, dropped once the answer came, so a long reply does not keep
  // its request body (tens of KB per model call) alive and promoted into the old generation.
  let request: { url: URL; init: EventStreamInit } | undefined = { url, init };
  return answer(req, agents.extraCaFile, signal, init.onEventStream, () => {
    const again = request;
    request = undefined;
    return again;
  }, (next) => send(agents, next.url, next.init, hops + 1), hops);
}

function answer(
  req: http.ClientRequest,
  extraCaFile: string | undefined,
  signal: AbortSignal | undefined,
  onEventStream: EventStreamInit["onEventStream"],
  takeRequest: () => { url: URL; init: EventStreamInit } | undefined,
  sendAgain: (next: { url: URL; init: EventStreamInit }) => Promise<Response>,
  hops: number,
): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    let answered = false;
    const onAbort = () => req.destroy(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => signal?.removeEventListener("abort", onAbort);

    req.on("error", (error) => {
      takeRequest();
      done();
      // As fetch: an abort rejects with the signal's reason, anything else is "fetch failed"; a
      // refused certificate is said in words a user can act on.
      const proxyHost = proxyHostOf(error);
      const cause = certificateError(error, proxyHost ?? req.host, extraCaFile, proxyHost !== undefined) ?? error;
      if (!answered) reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause }));
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
      const location = res.headers.location;
      const step = REDIRECTS.has(status) && location && sent ? redirectStep(sent.url, sent.init, status, location, hops) : { keep: true as const };
      if (!("keep" in step)) {
        res.destroy();
        done();
        if ("fail" in step) reject(new TypeError("fetch failed", { cause: new Error(step.fail) }));
        else resolve(sendAgain(step.follow));
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
