// Request bodies of the files operations that take more than JSON's 64 KB: read no further than a
// limit (413 beyond it), and multipart/form-data parsed (by the platform's own parser) into fields.
import type { Context } from "hono";
import { readBody } from "../request-body.ts";
import { ApiError } from "./errors.ts";

const MiB = 1024 * 1024;

/** The form's body as it came, at most `max` bytes (else 413 naming the limit); `taking` is told
 * the bytes read so far as each part comes. */
function formBytes(c: Context, max: number, operation: string, taking: (size: number) => void): Promise<Buffer<ArrayBuffer>> {
  return readBody(
    c,
    max,
    {
      tooLarge: () => new ApiError(413, "payload_too_large", `body: larger than ${sizeOf(max)}, the most ${operation} takes`, operation),
      encoded: (encoding) => new ApiError(415, "unsupported_media_type", `Content-Encoding ${encoding} is not supported: send the body as it is`, operation),
    },
    taking,
  );
}

export const sizeOf = (bytes: number) => (bytes >= MiB ? `${bytes / MiB} MiB` : `${bytes / 1024} KiB`);

/** A form's fields: each text field's value (given once), and the files; `release` gives back the
 * memory it was given (formOf), once its files are written. */
export type Form = { fields: Map<string, string>; files: Map<string, File[]>; release: () => void };

/** The bytes of the forms being read and written at once, across requests: each is read whole, then
 * parsed, and its files copied once more to be written, so many large uploads at once would take
 * the server's memory. A form is given its declared length (else what came so far) out of this; past
 * it, 503 with Retry-After. Two of the largest batch uploads fit at once. */
export const FORMS_HELD_MAX_BYTES = 256 * MiB;
let held = 0;

/** The bytes given to forms being read or written now (for the diagnostics). */
export const formsHeldBytes = () => held;

/** The headers of a part are at most this many bytes. */
const PART_HEADERS_MAX = 16 * 1024;

/** The multipart/form-data body, at most `max` bytes of at most `maxParts` parts; 415 for a body of
 * another type, 400 for one that is not well formed or gives a text field twice, or gives a field
 * not in `known`. */
export async function formOf(c: Context, max: number, maxParts: number, operation: string, known: string[]): Promise<Form> {
  const type = c.req.header("content-type") ?? "";
  if (!/^multipart\/form-data\s*(;|$)/i.test(type)) throw new ApiError(415, "unsupported_media_type", `Content-Type: ${operation} takes multipart/form-data, not ${type === "" ? "a body of no type" : type}`, operation);
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
  if (!boundary) throw new ApiError(400, "invalid_request", "Content-Type: multipart/form-data names no boundary", operation);
  let given = 0;
  const release = () => {
    held -= given;
    given = 0;
  };
  const take = (size: number) => {
    if (size <= given) return;
    if (held - given + size > FORMS_HELD_MAX_BYTES) {
      c.header("Retry-After", "5");
      throw new ApiError(503, "unavailable", `body: other uploads are being read: the server reads at most ${sizeOf(FORMS_HELD_MAX_BYTES)} of them at once; try again shortly`, operation);
    }
    held += size - given;
    given = size;
  };
  try {
    const declared = Number(c.req.header("content-length"));
    if (declared <= max) take(declared);
    const form = await parsed(await formBytes(c, max, operation, take), type, boundary[1] ?? boundary[2], maxParts, operation, known);
    return { ...form, release };
  } catch (error) {
    release();
    throw error;
  }
}

async function parsed(bytes: Buffer<ArrayBuffer>, type: string, boundary: string, maxParts: number, operation: string, known: string[]): Promise<Omit<Form, "release">> {
  checkParts(bytes, boundary, maxParts, operation);
  let data: FormData;
  try {
    data = await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    throw new ApiError(400, "invalid_request", "body: not well-formed multipart/form-data (its parts, their headers or the closing boundary)", operation);
  }
  const form: Omit<Form, "release"> = { fields: new Map(), files: new Map() };
  for (const [name, value] of data) {
    if (!known.includes(name)) throw new ApiError(400, "invalid_request", `${name}: not a field of ${operation} (it takes ${known.join(", ")})`, operation);
    if (typeof value === "string") {
      if (form.fields.has(name)) throw new ApiError(400, "invalid_request", `${name}: given more than once`, operation);
      form.fields.set(name, value);
    } else {
      const files = form.files.get(name) ?? [];
      files.push(value);
      form.files.set(name, files);
    }
  }
  return form;
}

/** Refuses a body of more than `maxParts` parts, or a part whose headers are larger than
 * PART_HEADERS_MAX, before it is parsed: the platform's parser would take its time over them,
 * and the server waits meanwhile. Counts each delimiter, as a bound of the parts. */
function checkParts(bytes: Buffer, boundary: string, maxParts: number, operation: string): void {
  const first = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  const headersEnd = Buffer.from("\r\n\r\n");
  let parts = 0;
  let at = bytes.indexOf(first);
  while (at >= 0) {
    const after = at + (parts === 0 ? first.length : next.length);
    if (bytes[after] === 0x2d && bytes[after + 1] === 0x2d) return; // "--": the closing delimiter
    if (++parts > maxParts) throw new ApiError(413, "payload_too_large", `body: more than ${maxParts} parts, the most ${operation} takes`, operation);
    const end = bytes.indexOf(headersEnd, after);
    if (end < 0) return; // not well formed: the parser says so
    if (end - after > PART_HEADERS_MAX) throw new ApiError(400, "invalid_request", `body: the headers of a part: larger than ${sizeOf(PART_HEADERS_MAX)}`, operation);
    at = bytes.indexOf(next, end);
  }
}
