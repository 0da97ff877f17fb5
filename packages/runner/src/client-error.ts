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
    const body = JSON.stringify({ error: message });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}
