// Requests node:http cannot parse (an unknown method, a broken chunk, headers past the limit) are
// answered by default with a bare status; these answers say why, in the { error } JSON of every
// other refusal.
import { STATUS_CODES, type Server } from "node:http";
import type { Duplex } from "node:stream";

const MESSAGES: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, "the request's headers are too large"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "the request did not arrive in time"],
};

export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException & { reason?: string }, socket: Duplex & { bytesWritten?: number }) => {
    // A client gone, or an answer already begun on the connection: nothing can be said to it.
    if (error.code === "ECONNRESET" || !socket.writable || socket.bytesWritten) {
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
