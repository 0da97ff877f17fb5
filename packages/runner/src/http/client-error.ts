// Requests node:http cannot parse (an unknown method, a broken chunk, headers past the limit) are
// answered by default with a bare status; these answers say why, in the { error } JSON of every
// other refusal.
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

const MESSAGES: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "the request's headers are too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "the request did not arrive in time"],
};

export function answerClientErrors(server: Server): void {
  /** Per connection, the answer to its request in flight (whose body may be what broke). */
  const answering = new WeakMap<object, ServerResponse>();
  server.on("request", (_req: IncomingMessage, res: ServerResponse) => {
    const socket = res.socket;
    if (!socket) return;
    answering.set(socket, res);
    res.on("close", () => answering.get(socket) === res && answering.delete(socket));
  });
  server.on("clientError", (error: NodeJS.ErrnoException & { reason?: string }, socket: Duplex) => {
    // A client gone, or an answer begun on the connection (the two would mix): nothing can be said
    // to it. A connection kept alive after its answers ended is answered, as node:http does.
    if (error.code === "ECONNRESET" || !socket.writable || answering.get(socket)?.headersSent) {
      socket.destroy();
      return;
    }
    const [status, message] = MESSAGES[error.code ?? ""] ?? [400, `not an HTTP request this server can read: ${error.reason ?? error.message}`];
    answerRaw(socket, status, message);
  });
}

/** Answers on `socket`, where there is no response to answer with (a request node:http could not
 * read, a WebSocket upgrade refused), `status` and `{ error: message }`, and closes it. */
export function answerRaw(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = JSON.stringify({ error: message });
  const lines = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join("\r\n")}\r\n\r\n${body}`);
}
