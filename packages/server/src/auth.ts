// Bearer-token authentication for HTTP requests and WebSocket upgrades.
import { createHash, timingSafeEqual } from "node:crypto";

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

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare) || bare === "::ffff:127.0.0.1";
}
