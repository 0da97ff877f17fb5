// How the runner client speaks HTTP. The default is fetch, which every host has (Node, a Worker, a
// Durable Object); a Node host can pass nodeTransport() (node-transport.ts), which reads event
// streams without web streams and costs the host less per event.

export type TransportRequest = {
  method: "GET" | "POST" | "PUT" | "DELETE";
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
};

export type TransportResponse = {
  status: number;
  /** The whole body as text. */
  text(): Promise<string>;
  /** The body as text as it arrives, in pieces in order (a piece may hold several chunks that
   * arrived together). Rejects when the connection breaks before the body ended. */
  chunks(): AsyncIterator<string>;
  /** Stops reading the body and lets the connection go. */
  cancel(): void;
};

/** Sends one request. Rejects when there is no answer: the error, or its `cause`, says why (for
 * example "connect ECONNREFUSED 127.0.0.1:7701"); with the signal's reason when it was aborted. */
export type RunnerTransport = (url: string, request: TransportRequest) => Promise<TransportResponse>;

export const fetchTransport: RunnerTransport = async (url, request) => {
  if (url.startsWith("http+unix:")) throw new Error("fetch cannot reach a runner on a Unix socket (an http+unix:// URL); a Node host reaches it with nodeTransport()");
  const res = await fetch(url, request);
  return {
    status: res.status,
    text: () => res.text(),
    chunks: () => textChunks(res.body),
    cancel: () => {
      res.body?.cancel().catch(() => {});
    },
  };
};

async function* textChunks(body: ReadableStream<Uint8Array> | null): AsyncGenerator<string> {
  if (!body) return;
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let ended = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) {
        ended = true;
        const rest = decoder.decode();
        if (rest) yield rest;
        return;
      }
      yield decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    if (!ended) reader.cancel().catch(() => {});
  }
}
