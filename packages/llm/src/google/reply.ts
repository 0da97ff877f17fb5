// One request to a Google token service (OAuth token endpoint, STS, IAM Credentials, a subject
// token URL): sent with a deadline, its answer read only as far as any token reply goes, parsed,
// and a failure said as one line naming the URL and what it answered, never a credential.
import { GoogleAuthError, checkedToken } from "./auth-error.ts";
import { leadingText } from "@harness/protocol/leading-text";

/** A token reply is a few hundred bytes: a longer one is not read to its end. */
export const MAX_REPLY_BYTES = 256 * 1024;
const DEADLINE_MS = 30_000;

/** A token, and when (by the caller's clock) it expires. */
export type Kept = { token: string; expires: number };

/** How a request goes out: through the proxy the run's environment names (net/http-fetch.ts fetchFor). */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

export type Reply = { response: Response; text: string; body: Record<string, unknown> };

/** The answer of `url` to `init`, whatever its status; rejects with a retryable GoogleAuthError
 * when `url` cannot be reached or its answer breaks off, and a final one when it is too long. */
export async function askGoogle(url: string, init: RequestInit, what: string, doFetch: Fetch = fetch): Promise<Reply> {
  let response: Response;
  try {
    response = await doFetch(url, { ...init, signal: AbortSignal.timeout(DEADLINE_MS) });
  } catch (error) {
    throw new GoogleAuthError(`could not reach ${url} for ${what}: ${causeOf(error)}`, true);
  }
  let read: { text: string; more: boolean };
  try {
    read = await leadingText(response, MAX_REPLY_BYTES);
  } catch (error) {
    throw new GoogleAuthError(`the answer of ${url} for ${what} broke off: ${causeOf(error)}`, true);
  }
  if (read.more) throw new GoogleAuthError(`${url} answered with more than ${MAX_REPLY_BYTES / 1024} KiB, which is no token reply`);
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(read.text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // A reply that is not JSON is said by whoever needed a field of it.
  }
  return { response, text: read.text, body };
}

/** The refusal in a reply that is not 2xx: OAuth's {error, error_description}, Google APIs'
 * {error: {status, message}}, else the start of the text. */
export function refusalOf(reply: Reply): string {
  const { body, text, response } = reply;
  const nested = typeof body.error === "object" && body.error !== null ? (body.error as Record<string, unknown>) : undefined;
  const parts = nested ? [nested.status, nested.message] : [body.error, body.error_description];
  return parts.filter((part) => typeof part === "string" && part).join(": ") || text.slice(0, 200) || response.statusText;
}

/** The error for a refused request for the credentials in `named`. */
export function refused(url: string, reply: Reply, named: string): GoogleAuthError {
  const status = reply.response.status;
  return new GoogleAuthError(`Google refused an access token for the credentials in ${named}: ${url} answered ${status}: ${refusalOf(reply)}`, status >= 500 || status === 429);
}

/** An OAuth token endpoint's token for `form` (form-encoded POST): {access_token, expires_in}. */
export async function oauthToken(url: string, form: Record<string, string>, named: string, now: () => number, headers: Record<string, string> = {}, doFetch: Fetch = fetch): Promise<Kept> {
  const reply = await askGoogle(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(form).toString() }, "a Google access token", doFetch);
  if (!reply.response.ok) throw refused(url, reply, named);
  return keptToken(reply.body, url, named, now);
}

/** The token of an OAuth-shaped reply of `url` ({access_token, expires_in}), an hour when it says no life. */
export function keptToken(body: Record<string, unknown>, url: string, named: string, now: () => number): Kept {
  if (typeof body.access_token !== "string" || body.access_token === "") throw new GoogleAuthError(`${url} answered without an access_token for the credentials in ${named}`);
  checkedToken(body.access_token, `the access_token ${url} answered with for the credentials in ${named}`);
  const seconds = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 3600;
  return { token: body.access_token, expires: now() + seconds * 1000 };
}

/** A URL the credentials in `named` give as `field`, when it is http(s). */
export function httpUrl(value: unknown, field: string, named: string): string {
  if (typeof value !== "string" || !/^https?:\/\/[^/]/.test(value)) throw new GoogleAuthError(`the Google credentials in ${named} have a ${field} that is not an http(s) URL: ${JSON.stringify(value ?? null)}`);
  return value;
}

function causeOf(error: unknown): string {
  return (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
}
