// One HTTP(S) GET for WebFetch: redirects within the same site are followed, a redirect to another
// host is returned to the caller instead, the body is capped in size, and failures are values.
import { fetchFor } from "@harness/llm/http-fetch";
import { formatBytes } from "../paths.ts";

export type FetchedPage =
  | { kind: "page"; url: string; status: number; statusText: string; contentType: string; body: Buffer }
  | { kind: "redirect"; from: string; to: string; status: number; statusText: string }
  | { kind: "error"; message: string };

/** `refuse`: why a redirect within the site may not be followed to `to` (a deny rule); undefined
 * when it may. `env`: the run's network variables, as fetchFor reads them (the proxies, the extra
 * CA file, the client certificate). */
export type FetchPageOptions = { signal: AbortSignal; timeoutMs: number; maxBytes: number; env: Readonly<Record<string, string | undefined>>; refuse?: (to: URL) => string | undefined };

const MAX_REDIRECTS = 10;
const USER_AGENT = "Mozilla/5.0 (compatible; HarnessWebFetch/1.0)";

export async function fetchPage(url: URL, options: FetchPageOptions): Promise<FetchedPage> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  let current = url;
  const fetch = fetchFor(options.env);
  try {
    for (let hop = 0; ; hop++) {
      const response = await fetch(current, {
        redirect: "manual",
        signal,
        headers: { "user-agent": USER_AGENT, accept: "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5" },
      });
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location !== null) {
        await response.body?.cancel();
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          return { kind: "error", message: `${current.href} redirected to an invalid address: ${location}` };
        }
        if (!sameSite(current, next)) return { kind: "redirect", from: current.href, to: next.href, status: response.status, statusText: response.statusText };
        const refused = options.refuse?.(next);
        if (refused !== undefined) return { kind: "error", message: `${current.href} redirected to ${next.href}, which is not fetched: ${refused}` };
        if (hop + 1 >= MAX_REDIRECTS) return { kind: "error", message: `Too many redirects (more than ${MAX_REDIRECTS}) starting from ${url.href}.` };
        current = next;
        continue;
      }
      const declared = Number(response.headers.get("content-length") ?? NaN);
      if (declared > options.maxBytes) {
        await response.body?.cancel();
        return { kind: "error", message: tooLarge(current, declared, options.maxBytes) };
      }
      const body = await readCapped(response, options.maxBytes);
      if (body === undefined) return { kind: "error", message: tooLarge(current, undefined, options.maxBytes) };
      return {
        kind: "page",
        url: current.href,
        status: response.status,
        statusText: response.statusText,
        contentType: response.headers.get("content-type") ?? "",
        body,
      };
    }
  } catch (error) {
    if (options.signal.aborted) return { kind: "error", message: "Interrupted by user" };
    if (timeout.aborted) return { kind: "error", message: `Fetching ${current.href} timed out after ${Math.round(options.timeoutMs / 1000)} s.` };
    return { kind: "error", message: `Fetching ${current.href} failed: ${describeFetchError(error)}` };
  }
}

/** Redirects that stay on the site are followed: the same host (give or take "www."), port and
 * protocol, or an upgrade from http to https. */
function sameSite(from: URL, to: URL): boolean {
  const bare = (host: string) => host.replace(/^www\./, "");
  if (bare(from.hostname) !== bare(to.hostname)) return false;
  if (from.protocol === to.protocol) return from.port === to.port;
  return from.protocol === "http:" && to.protocol === "https:" && (to.port === "" || to.port === "443");
}

/** The body, or undefined once it grows past `maxBytes` (the download is then cancelled). */
async function readCapped(response: Response, maxBytes: number): Promise<Buffer | undefined> {
  if (!response.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function tooLarge(url: URL, size: number | undefined, maxBytes: number): string {
  const actual = size !== undefined ? ` (${formatBytes(size)})` : "";
  return `The response from ${url.href} is too large${actual}: WebFetch reads at most ${formatBytes(maxBytes)}. Fetch a more specific page, or download it with Bash (curl -o) and search it with Grep.`;
}

function describeFetchError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error));
  const code = cause && "code" in cause ? ` (${String(cause.code)})` : "";
  return `${message}${code}`;
}
