// Bearer-token authentication for HTTP requests and WebSocket upgrades.
import { createHash, timingSafeEqual } from "node:crypto";
import { forLoopback, isLoopbackHost } from "@harness/runner/loopback";

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** Compares in constant time; hashing first keeps the token's length from leaking too. */
export function tokenMatches(expected: string, provided: string | undefined): boolean {
  if (provided === undefined) return false;
  return timingSafeEqual(digest(expected), digest(provided));
}

/** The token a request carries: `Authorization: Bearer <token>`, else the `token` query parameter. */
export function requestToken(authorization: string | undefined, url: URL): string | undefined {
  if (authorization) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    if (match) return match[1];
  }
  return url.searchParams.get("token") ?? undefined;
}

/**
 * Why a request must be refused because a web page on another site may have made it, or undefined.
 * For a server without a token only: a browser lets any page open a WebSocket to 127.0.0.1 or
 * send it a form-like POST, and a page whose name an attacker points at 127.0.0.1 (DNS rebinding)
 * may read the answers. So the Host must be a loopback name, and an Origin, when a browser sends
 * one, a loopback page or one of `allowedOrigins`. Programs that send no Origin are unaffected.
 */
export function crossSiteRefusal(host: string | undefined, origin: string | undefined, allowedOrigins: ReadonlySet<string>): string | undefined {
  if (!forLoopback(host)) {
    return `refused a request for host "${host}": without HARNESS_TOKEN this server answers only loopback names (localhost, 127.0.0.1, [::1])`;
  }
  if (origin === undefined || allowedOrigins.has(origin)) return undefined;
  let page: URL | undefined;
  try {
    page = new URL(origin);
  } catch {
    // "null" (a sandboxed page, a file) and anything else that is not an origin.
  }
  const web = page !== undefined && (page.protocol === "http:" || page.protocol === "https:") && page.origin === origin;
  if (web && isLoopbackHost(page!.hostname)) return undefined;
  // A file or a sandboxed page sends "null", which any such page anywhere can send: never let in.
  if (!web) return `refused a request from a page whose origin is ${JSON.stringify(origin)} (a file or a sandboxed page): without HARNESS_TOKEN only pages on this machine may use this server; set HARNESS_TOKEN`;
  return `refused a request from the web page at ${origin}: without HARNESS_TOKEN only pages on this machine (localhost) may use this server; set HARNESS_ALLOWED_ORIGINS=${origin} to let that page in, or set HARNESS_TOKEN`;
}

/** The user a request's token is bound to (a token of HARNESS_TOKENS_FILE), by request; absent for
 * the shared token and without tokens. Set by the HTTP app's token check, read where a request
 * names its user. */
export const tokenUsers = new WeakMap<Request, string>();

/** Why a token bound to `bound` may not act for `userId`, or undefined when it may. */
export function notTheirs(bound: string | undefined, userId: string): string | undefined {
  return bound === undefined || bound === userId ? undefined : `this token is ${bound}'s: it cannot act for ${userId}`;
}
