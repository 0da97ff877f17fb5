// What went wrong with one attempt, in words a user can act on, and whether trying again may help.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";

export type Failure = { description: string; retryable: boolean; retryAfterMs?: number };

const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504, 529]);

/** Error event types that describe the request rather than the service: sending it again fails again. */
const FINAL_ERROR_TYPES: ReadonlySet<string> = new Set([
  "invalid_request_error",
  "authentication_error",
  "billing_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
]);

/** A failure before the response body: HTTP error statuses, connection errors, client setup errors. */
export function requestFailure(error: unknown, baseURL: string): Failure {
  if (error instanceof APIConnectionTimeoutError) {
    return { description: `the request to the Anthropic API at ${baseURL} timed out`, retryable: true };
  }
  if (error instanceof APIConnectionError) {
    return { description: `could not connect to the Anthropic API at ${baseURL}: ${rootCause(error)}`, retryable: true };
  }
  if (error instanceof APIError && error.status !== undefined) {
    const status = error.status;
    const failure: Failure = {
      description: `Anthropic API error ${status} (${error.type ?? "unknown_error"}): ${apiMessage(error)}`,
      retryable: RETRYABLE_STATUSES.has(status),
    };
    const retryAfterMs = parseRetryAfter(error.headers);
    if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
    return failure;
  }
  return streamFailure(error, false);
}

/** A failure while reading the response body: an `error` event, or the connection breaking. */
export function streamFailure(error: unknown, retryable = true): Failure {
  if (error instanceof APIError && error.status === undefined && error.type !== null) {
    return {
      description: `Anthropic API stream error (${error.type}): ${apiMessage(error)}`,
      retryable: !FINAL_ERROR_TYPES.has(error.type),
    };
  }
  return { description: causeChain(error), retryable };
}

/** "terminated: other side closed": each distinct message down the cause chain. */
function causeChain(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !messages.includes(message)) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.join(": ") || "unknown error";
}

/** The API's own message; a body that is not the API's JSON (a proxy's HTML page, say) is cut short. */
function apiMessage(error: APIError): string {
  const message = error.apiMessage ?? error.message;
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

/** The innermost message of an error's cause chain ("connect ECONNREFUSED …" beneath "fetch failed"). */
function rootCause(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
    if (current instanceof Error && current.message) message = current.message;
  }
  return message;
}

/** retry-after-ms, else retry-after (seconds or an HTTP date), in milliseconds. */
export function parseRetryAfter(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export const MAX_RETRY_DELAY_MS = 60_000;

/** The wait before retry number `attempt` (1-based): the server's retry-after when it sent one,
 * else exponential backoff from `baseMs` with up to 25% jitter; at most 60 s either way. */
export function retryDelayMs(attempt: number, baseMs: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.min(Math.ceil(retryAfterMs), MAX_RETRY_DELAY_MS);
  const backoff = baseMs * 2 ** (attempt - 1);
  return Math.min(Math.round(backoff * (1 + Math.random() * 0.25)), MAX_RETRY_DELAY_MS);
}
