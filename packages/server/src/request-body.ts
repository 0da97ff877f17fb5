// A request's body as it came, read no further than a limit: the one reader of the sessions API's
// JSON bodies and the Open Harness files routes' (a file's bytes, a form, a list of paths).
import type { Context } from "hono";

/** What a body is refused with, in the caller's API's words. */
export type BodyRefusals = {
  /** Its Content-Length, or what came, is past the limit. */
  tooLarge(): Error;
  /** It is compressed (a Content-Encoding other than identity): the limit is of what is kept. */
  encoded(encoding: string): Error;
};

/** The body's bytes, at most `max`: refused before a byte is read when its Content-Length says
 * more, and as soon as what came is more. `taking` is told the bytes read so far, as each chunk
 * comes (it may throw to stop the read). */
export async function readBody(c: Context, max: number, refuse: BodyRefusals, taking?: (size: number) => void): Promise<Buffer<ArrayBuffer>> {
  if (Number(c.req.header("content-length")) > max) throw refuse.tooLarge();
  const encoding = c.req.header("content-encoding");
  if (encoding !== undefined && encoding.trim().toLowerCase() !== "identity") throw refuse.encoded(encoding);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of c.req.raw.body ?? []) {
    size += chunk.byteLength;
    if (size > max) throw refuse.tooLarge();
    taking?.(size);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
