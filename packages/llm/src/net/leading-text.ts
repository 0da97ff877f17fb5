// A body read only as far as a caller can use: an answer that will not end (a misbehaving server,
// something in between) must not be held whole in memory.

/** The first `max` bytes of `response`'s body as text, and whether it had more (then cancelled,
 * the rest never read). A body that breaks off rejects as its stream does. */
export async function leadingText(response: Response, max: number): Promise<{ text: string; more: boolean }> {
  if (!response.body) return { text: "", more: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString("utf8"), more: false };
    if (length + value.length > max) {
      chunks.push(value.subarray(0, max - length));
      void reader.cancel().catch(() => {});
      return { text: Buffer.concat(chunks).toString("utf8"), more: true };
    }
    length += value.length;
    chunks.push(value);
  }
}
