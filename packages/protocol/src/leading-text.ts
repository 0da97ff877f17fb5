// A body read only as far as a caller can use: an answer that will not end (a misbehaving server,
// something in between, a file grown past what was listed) must not be held whole in memory.
// Browser-safe: the web UI reads its downloads with it as the server reads remote answers.

/** The first `max` bytes of `response`'s body as text, and whether it had more (then cancelled,
 * the rest never read). A body that breaks off rejects as its stream does. */
export async function leadingText(response: Response, max: number): Promise<{ text: string; more: boolean }> {
  if (!response.body) return { text: "", more: false };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: text + decoder.decode(), more: false };
    if (length + value.length > max) {
      text += decoder.decode(value.subarray(0, max - length));
      void reader.cancel().catch(() => {});
      return { text, more: true };
    }
    length += value.length;
    text += decoder.decode(value, { stream: true });
  }
}
