// A real HTTP server on 127.0.0.1 that plays scripted replies in the Anthropic Messages wire format,
// so that the real SDK (and Claude Code itself) can be pointed at it through ANTHROPIC_BASE_URL.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { estimateInputTokens, playReply, readJson, sendJson, type RequestBody } from "./fake-anthropic-reply.ts";
import type { FakeAnthropic, FakeAnthropicOptions, FakeReply, RecordedRequest } from "./fake-anthropic-types.ts";
import { errorBody } from "./fake-anthropic-wire.ts";

type Waiter = { n: number; resolve: (r: RecordedRequest[]) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const queue: FakeReply[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const sideRequests: RecordedRequest[] = [];
  const waiters = new Set<Waiter>();
  const sockets = new Set<Socket>();

  const record = (request: RecordedRequest): number => {
    requests.push(request);
    for (const w of waiters) {
      if (requests.length < w.n) continue;
      waiters.delete(w);
      clearTimeout(w.timer);
      w.resolve(requests.slice(0, w.n));
    }
    return requests.length - 1;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const arrived = performance.timeOrigin + performance.now();
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (path === "/" && (req.method === "GET" || req.method === "HEAD")) {
      // A client checking that the base URL answers at all.
      req.resume();
      sendJson(res, 200, { ok: true });
      return;
    }
    if (req.method !== "POST" || (path !== "/v1/messages" && path !== "/v1/messages/count_tokens")) {
      req.resume();
      sendJson(res, 404, errorBody("not_found_error", `fake-anthropic: no route for ${req.method} ${path}`));
      return;
    }
    const parsed = await readJson(req);
    if (!parsed.ok) {
      sendJson(res, 400, errorBody("invalid_request_error", `fake-anthropic: request body is not valid JSON: ${parsed.error}`));
      return;
    }
    const invalid = describeInvalidBody(parsed.value, path);
    if (invalid) {
      if (path === "/v1/messages") record({ method: "POST", path, url, headers: { ...req.headers }, body: parsed.value, at: arrived });
      sendJson(res, 400, errorBody("invalid_request_error", invalid));
      return;
    }
    const body = parsed.value as RequestBody;
    if (path === "/v1/messages/count_tokens") {
      sendJson(res, 200, { input_tokens: estimateInputTokens(body) });
      return;
    }
    const recorded: RecordedRequest = { method: "POST", path, url, headers: { ...req.headers }, body, at: arrived };
    if (options.route?.(recorded) === "side") {
      sideRequests.push(recorded);
      await playReply(options.sideReply?.(recorded) ?? { text: "OK" }, body, res);
      return;
    }
    const index = record(recorded);
    const reply = options.respond?.(recorded, index) ?? queue.shift();
    if (!reply) {
      const message = `fake-anthropic: no scripted reply left for request ${index + 1} (each /v1/messages request takes one reply)`;
      sendJson(res, 500, errorBody("api_error", message));
      return;
    }
    await playReply(reply, body, res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const message = `fake-anthropic: ${err instanceof Error ? err.message : String(err)}`;
      if (!res.headersSent) sendJson(res, 500, errorBody("api_error", message));
      else res.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sideRequests,
    push: (...replies) => {
      queue.push(...replies);
    },
    waitForRequests: (n, timeoutMs = 10_000) => {
      if (requests.length >= n) return Promise.resolve(requests.slice(0, n));
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          n,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.delete(waiter);
            reject(new Error(`fake-anthropic: waited ${timeoutMs} ms for ${n} requests, got ${requests.length}`));
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const w of waiters) {
          clearTimeout(w.timer);
          w.reject(new Error(`fake-anthropic: closed while waiting for ${w.n} requests, got ${requests.length}`));
        }
        waiters.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** What the real API would reject with a 400, worded like its messages. */
function describeInvalidBody(body: unknown, path: string): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body: must be a JSON object";
  const b = body as RequestBody;
  if (typeof b.model !== "string" || b.model === "") return "model: Field required (a non-empty string)";
  if (!Array.isArray(b.messages)) return "messages: Field required (an array)";
  if (path === "/v1/messages" && typeof b.max_tokens !== "number") return "max_tokens: Field required (a number)";
  return undefined;
}
