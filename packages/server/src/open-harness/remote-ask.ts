// One GET of another harness's API (a registered hosted one): bounded in time, never redirected, its
// answer read no further than a cap. A failure is a value saying what happened, for a health check's
// message or an error naming the harness.

export type RemoteAnswer =
  /** An HTTP answer came: `failure` says why it is not the JSON asked for (undefined when it is). */
  | { answered: true; status: number; json: unknown; failure?: string; latencyMs: number }
  /** None came: refused, unresolved, timed out. */
  | { answered: false; failure: string; latencyMs: number };

export async function askRemote(url: string, { timeoutMs, maxBytes }: { timeoutMs: number; maxBytes: number }): Promise<RemoteAnswer> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const signal = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, { redirect: "manual", signal, headers: { accept: "application/json", "user-agent": "Harness-Registry" } });
  } catch (error) {
    return { answered: false, failure: `GET ${url}: ${whyFailed(error, timeoutMs)}`, latencyMs: elapsed() };
  }
  const status = response.status;
  const fail = (failure: string) => {
    void response.body?.cancel().catch(() => {});
    return { answered: true as const, status, json: undefined, failure: `GET ${url} ${failure}`, latencyMs: elapsed() };
  };
  if (status >= 300 && status < 400) return fail(`answered a redirect (${status}${response.headers.has("location") ? ` to ${response.headers.get("location")}` : ""}): redirects are not followed`);
  if (status < 200 || status >= 300) return fail(`answered ${status}`);
  let body: Uint8Array;
  try {
    const read = await readAtMost(response, maxBytes);
    if (read === undefined) return fail(`answered more than ${maxBytes} bytes`);
    body = read;
  } catch (error) {
    return fail(`answered, but its body broke off: ${whyFailed(error, timeoutMs)}`);
  }
  try {
    return { answered: true, status, json: JSON.parse(new TextDecoder().decode(body)), latencyMs: elapsed() };
  } catch {
    return fail(`answered ${status} with no JSON (${response.headers.get("content-type") ?? "no content type"})`);
  }
}

/** The body whole, or undefined once it runs past `maxBytes` (the rest not read). */
async function readAtMost(response: Response, maxBytes: number): Promise<Uint8Array | undefined> {
  if (!response.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function whyFailed(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") return `no answer within ${timeoutMs / 1000} s`;
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message ?? "failed"} (${cause})` : (e.message ?? String(error));
}
