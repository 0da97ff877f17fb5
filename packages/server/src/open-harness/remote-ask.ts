// One GET of another harness's API (a registered hosted one): bounded in time, never redirected, its
// answer read no further than a cap. A failure is a value saying what happened, for a health check's
// message or an error naming the harness.
import { leadingText } from "@harness/protocol/leading-text";

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
  let body: string;
  try {
    const read = await leadingText(response, maxBytes);
    if (read.more) return fail(`answered more than ${maxBytes} bytes`);
    body = read.text.replace(/^\uFEFF/, "");
  } catch (error) {
    return fail(`answered, but its body broke off: ${whyFailed(error, timeoutMs)}`);
  }
  try {
    return { answered: true, status, json: JSON.parse(body), latencyMs: elapsed() };
  } catch {
    return fail(`answered ${status} with no JSON (${response.headers.get("content-type") ?? "no content type"})`);
  }
}

function whyFailed(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError" || e.name === "AbortError") return `no answer within ${timeoutMs / 1000} s`;
  const cause = e.cause?.code ?? e.cause?.message;
  return cause ? `${e.message ?? "failed"} (${cause})` : (e.message ?? String(error));
}
