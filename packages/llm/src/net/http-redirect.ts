// A redirect as fetch follows it (the Fetch standard's "HTTP-redirect fetch"): at most 20, a 303
// (and a 301 or 302 to a POST) turns into a GET without its body, and credentials stay with the
// origin they were meant for.
import type { EventStreamInit } from "./http-fetch.ts";

const MAX_REDIRECTS = 20;

/** The headers that describe a body, dropped with it. */
const BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-location"];

/** The headers that carry credentials, not sent to another origin. */
const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie"];

export type RedirectStep =
  /** Send this request next. */
  | { follow: { url: URL; init: EventStreamInit } }
  /** Fail the fetch with this reason. */
  | { fail: string }
  /** Hand the redirect itself to the caller (redirect: "manual"). */
  | { keep: true };

/** What to do with a `status` answer that says `location`, to a request for `from` made with
 * `init` after `hops` redirects. */
export function redirectStep(from: URL, init: EventStreamInit, status: number, location: string, hops: number): RedirectStep {
  const mode = init.redirect ?? "follow";
  if (mode === "manual") return { keep: true };
  if (mode === "error") return { fail: `${from.href} redirected (status ${status}) where redirects are refused` };
  if (hops >= MAX_REDIRECTS) return { fail: `more than ${MAX_REDIRECTS} redirects` };
  let url: URL;
  try {
    url = new URL(location, from);
  } catch {
    return { fail: `${from.href} redirected to an invalid address` };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { fail: `${from.href} redirected to a ${url.protocol} URL` };
  const method = (init.method ?? "GET").toUpperCase();
  const headers = new Headers(init.headers);
  const next: EventStreamInit = { ...init, headers };
  if ((status === 303 && method !== "GET" && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
    next.method = "GET";
    next.body = null;
    for (const name of BODY_HEADERS) headers.delete(name);
  }
  if (url.origin !== from.origin) for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  return { follow: { url, init: next } };
}
