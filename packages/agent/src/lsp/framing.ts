// The base protocol of the Language Server Protocol: each JSON-RPC message is a header part
// (`Content-Length: <bytes>`, other headers ignored), a blank line (CRLF CRLF), then that many
// bytes of UTF-8 JSON.

/** The largest message read, in bytes: a server that announces more is broken, not chatty. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
const HEADER_END = Buffer.from("\r\n\r\n");
/** A header part longer than this without its blank line is not LSP. */
const MAX_HEADER_BYTES = 8 * 1024;

/** `message` framed for the wire. */
export function encodeMessage(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}

/** Reads messages out of the chunks of a byte stream, however they are split. `push` returns the
 * messages completed by the chunk, in order, and throws on a stream that is not LSP framing (no
 * Content-Length, a body that is not JSON, a message over MAX_MESSAGE_BYTES): the stream cannot be
 * read on after that. */
export class MessageReader {
  #buffer: Buffer = Buffer.alloc(0);
  #length: number | undefined;

  push(chunk: Buffer): unknown[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const messages: unknown[] = [];
    for (;;) {
      if (this.#length === undefined) {
        const end = this.#buffer.indexOf(HEADER_END);
        if (end === -1) {
          if (this.#buffer.length > MAX_HEADER_BYTES) throw new Error("no end of the message header (a blank line) in the first 8 KB");
          return messages;
        }
        this.#length = contentLength(this.#buffer.subarray(0, end).toString("ascii"));
        this.#buffer = this.#buffer.subarray(end + HEADER_END.length);
      }
      if (this.#buffer.length < this.#length) return messages;
      const body = this.#buffer.subarray(0, this.#length).toString("utf8");
      this.#buffer = this.#buffer.subarray(this.#length);
      this.#length = undefined;
      try {
        messages.push(JSON.parse(body));
      } catch {
        throw new Error(`a message body is not JSON: ${body.slice(0, 200)}`);
      }
    }
  }
}

function contentLength(header: string): number {
  for (const line of header.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon === -1 || line.slice(0, colon).trim().toLowerCase() !== "content-length") continue;
    const value = line.slice(colon + 1).trim();
    const length = /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(length)) throw new Error(`bad Content-Length header: ${JSON.stringify(line)}`);
    if (length > MAX_MESSAGE_BYTES) throw new Error(`a message of ${length} bytes is over the ${MAX_MESSAGE_BYTES}-byte limit`);
    return length;
  }
  throw new Error(`a message header without Content-Length: ${JSON.stringify(header.slice(0, 200))}`);
}
