// A runner started by a server serves that server only. It listens on loopback, where any local
// user's process can connect; so the server hands it a secret (the first line of its stdin, with
// --token-from-stdin; HARNESS_RUNNER_TOKEN in its environment for one started by hand) and sends it
// with every request as `Authorization: Bearer <token>`.
// A runner started without one (by hand, inside its own sandbox) takes every request made for its
// address; on a loopback address, only those made for a loopback name (a web page whose name an
// attacker points at 127.0.0.1, DNS rebinding, sends its own name).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { refuse } from "./http/http.ts";
import { quoteId } from "./http/ids.ts";
import { forLoopback } from "./loopback.ts";

export const RUNNER_TOKEN_ENV = "HARNESS_RUNNER_TOKEN";

const TOKEN_NEEDED_MESSAGE = "this runner takes requests from the server that started it only: Authorization: Bearer <its token> is missing or wrong";

/** A new token: 32 random bytes, base64url. */
export function newRunnerToken(): string {
  return randomBytes(32).toString("base64url");
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** `handle`, behind the token when there is one: other requests get 401 (compared in constant time). */
export function requireToken<A extends unknown[]>(
  token: string | undefined,
  handle: (req: IncomingMessage, res: ServerResponse, ...rest: A) => void,
): (req: IncomingMessage, res: ServerResponse, ...rest: A) => void {
  if (!token) return handle;
  const expected = digest(`Bearer ${token}`);
  return (req, res, ...rest) => {
    const given = req.headers.authorization;
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return handle(req, res, ...rest);
    refuse(req, res, 401, TOKEN_NEEDED_MESSAGE);
  };
}

/** `handle`, for requests made for a loopback name only: others get 403 (a runner without a token,
 * listening on a loopback address). */
export function requireLoopbackName<A extends unknown[]>(
  handle: (req: IncomingMessage, res: ServerResponse, ...rest: A) => void,
): (req: IncomingMessage, res: ServerResponse, ...rest: A) => void {
  return (req, res, ...rest) => {
    if (forLoopback(req.headers.host)) return handle(req, res, ...rest);
    refuse(req, res, 403, `refused a request for host ${quoteId(req.headers.host ?? "")}: a runner without ${RUNNER_TOKEN_ENV} on a loopback address answers only loopback names (localhost, 127.0.0.1, [::1])`);
  };
}
