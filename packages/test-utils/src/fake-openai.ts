// A real HTTP server on 127.0.0.1 that plays scripted replies in the OpenAI chat-completions wire
// format, so that the real `openai` SDK (or any OpenAI-compatible client) can be pointed at it
// through OPENAI_BASE_URL.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { readJson } from "./fake-anthropic-reply.ts";
import type { RecordedRequest } from "./fake-anthropic-types.ts";
import { playOpenAIReply, type RequestBody, sendOpenAIJson } from "./fake-openai-reply.ts";
import type { FakeOpenAI, FakeOpenAIOptions, FakeOpenAIReply } from "./fake-openai-types.ts";
import { errorBody } from "./fake-openai-wire.ts";

type Waiter = { n: number; resolve: (r: RecordedRequest[]) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

/** Chat completions, with or without the /v1 prefix (clients differ in what they put in the base URL). */
const ROUTES: ReadonlySet<string> = new Set(["/v1/chat/completions", "/chat/completions"]);

export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const queue: FakeOpenAIReply[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
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
    const url = req.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (req.method !== "POST" || !ROUTES.has(path)) {
      req.resume();
      sendOpenAIJson(res, 404, errorBody("invalid_request_error", `fake-openai: no route for ${req.method} ${path}`));
      return;
    }
    const parsed = await readJson(req);
    if (!parsed.ok) {
      sendOpenAIJson(res, 400, errorBody("invalid_request_error", `fake-openai: request body is not valid JSON: ${parsed.error}`));
      return;
    }
    const recorded: RecordedRequest = { method: "POST", path, url, headers: { ...req.headers }, body: parsed.value, at: performance.timeOrigin + performance.now() };
    const index = record(recorded);
    const invalid = describeInvalidBody(parsed.value);
    if (invalid) {
      sendOpenAIJson(res, 400, errorBody("invalid_request_error", invalid));
      return;
    }
    const reply = options.respond?.(recorded, index) ?? queue.shift();
    if (!reply) {
      const message = `fake-openai: no scripted reply left for request ${index + 1} (each chat-completions request takes one reply)`;
      sendOpenAIJson(res, 500, errorBody("server_error", message));
      return;
    }
    await playOpenAIReply(reply, parsed.value as RequestBody, res);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const message = `fake-openai: ${err instanceof Error ? err.message : String(err)}`;
      if (!res.headersSent) sendOpenAIJson(res, 500, errorBody("server_error", message));
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
    url: `http://127.0.0.1:${port}/v1`,
    requests,
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
            reject(new Error(`fake-openai: waited ${timeoutMs} ms for ${n} requests, got ${requests.length}`));
          }, timeoutMs),
        };
        waiters.add(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const w of waiters) {
          clearTimeout(w.timer);
          w.reject(new Error(`fake-openai: closed while waiting for ${w.n} requests, got ${requests.length}`));
        }
        waiters.clear();
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** What the real API would reject with a 400, worded like its messages. */
function describeInvalidBody(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body: must be a JSON object";
  const b = body as RequestBody;
  if (typeof b.model !== "string" || b.model === "") return "you must provide a model parameter";
  if (!Array.isArray(b.messages) || b.messages.length === 0) return "'messages' must contain at least one message";
  return undefined;
}
