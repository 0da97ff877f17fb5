// The HTTP app's access log (log/access.ts): its first middleware notes when a request came and
// writes the request's line once the Node response closes (its answer ended, or its client went
// away). A streamed answer (an execution's SSE) is thus one line, at its end, with nothing done
// per chunk.
import type { MiddlewareHandler } from "hono";
import { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { logAccess } from "./log/access.ts";
import type { LogLevel } from "./log/settings.ts";
import type { ServerLog } from "./log/writer.ts";

/** What @hono/node-server hands the app as its env. */
type NodeEnv = { incoming?: { socket?: { remoteAddress?: string } }; outgoing?: unknown } | undefined;

export function accessLog(
  log: ServerLog,
  options: {
    /** The Harness user of the request's token, asked once it is answered. */
    userOf: (request: Request) => string | undefined;
    /** The level of the request's line. */
    levelOf: (request: Request, pathname: string) => LogLevel;
  },
): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    const env = c.env as NodeEnv;
    const url = new URL(c.req.url);
    const line = (status: number | undefined, bytes: number | undefined, aborted: boolean) =>
      logAccess(log, {
        method: c.req.method,
        url,
        status,
        durationMs: performance.now() - started,
        bytes,
        user: options.userOf(c.req.raw),
        address: env?.incoming?.socket?.remoteAddress,
        aborted,
        level: options.levelOf(c.req.raw, url.pathname),
      });
    const response = env?.outgoing;
    if (!(response instanceof ServerResponse)) {
      // Not served through Node (app.request): the answer is the handler's.
      await next();
      return line(c.res.status, undefined, false);
    }
    const sent = bytesSent(response);
    response.once("close", () => line(response.headersSent ? response.statusCode : undefined, sent(), !response.writableFinished));
    await next();
  };
}

/** What `response` takes on its socket, headers included: how much the socket's count of bytes
 * written grew from when the response was given the socket (at once, or once the answers to
 * requests pipelined before it are sent) to when it finished, or to now if it has not. */
function bytesSent(response: ServerResponse): () => number | undefined {
  let socket: Socket | undefined;
  let from = 0;
  let sent: number | undefined;
  const take = (given: Socket) => {
    socket = given;
    from = given.bytesWritten;
  };
  if (response.socket) take(response.socket as Socket);
  else response.once("socket", take);
  // Ahead of Node's own listener, which hands the socket on to the next pipelined response.
  response.prependOnceListener("finish", () => {
    if (socket) sent = socket.bytesWritten - from;
  });
  return () => sent ?? (socket ? socket.bytesWritten - from : undefined);
}
