// The retry policy every provider shares: which HTTP statuses are worth another attempt, how long
// to wait before it, and how a failure is put into words.
import { errorKindOf, type ModelErrorKind } from "./error-kind.ts";

/** What went wrong with one attempt, in words a user can act on, and whether trying again may help;
 * when the service said, what kind of failure it was and its code (the HTTP status, or the stream
 * error's type). */
export type Failure = { description: string; retryable: boolean; retryAfterMs?: number; kind?: ModelErrorKind; code?: string };

/** A request timeout, conflicts, rate limits, and every server error but "not implemented" (the 5xx
 * of proxies and CDNs too: 520–524); 400/401/403/404/413 fail the same way again. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || (status >= 500 && status !== 501);
}

export const MAX_RETRY_DELAY_MS = 60_000;

/** A wait or a silence in words: "300 ms", "2.5 s", "120 s". */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** The wait before retry number `attempt` (1-based): the server's retry-after when it sent one,
 * else exponential backoff from `baseMs` with up to 25% jitter; at most 60 s either way. */
export function retryDelayMs(attempt: number, baseMs: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.min(Math.ceil(retryAfterMs), MAX_RETRY_DELAY_MS);
  const backoff = baseMs * 2 ** (attempt - 1);
  return Math.min(Math.round(backoff * (1 + Math.random() * 0.25)), MAX_RETRY_DELAY_MS);
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

/** An HTTP error status as a Failure, with the server's retry-after. Retryable by its status, unless
 * the server says otherwise with x-should-retry (as the Anthropic and OpenAI APIs do). */
export function statusFailure(description: string, status: number, headers: Headers | undefined, type?: string | null): Failure {
  const told = headers?.get("x-should-retry");
  const failure: Failure = { description, retryable: told === "true" ? true : told === "false" ? false : retryableStatus(status), kind: errorKindOf(status, type), code: String(status) };
  const retryAfterMs = parseRetryAfter(headers);
  if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
  return failure;
}

/** "terminated: other side closed": each distinct message down the cause chain. */
export function causeChain(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message && !messages.includes(message)) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.join(": ") || "unknown error";
}

/** The innermost message of an error's cause chain ("connect ECONNREFUSED …" beneath "fetch failed"). */
export function rootCause(error: unknown): string {
  let current: unknown = error;
  let message = error instanceof Error ? error.message : String(error);
  for (let depth = 0; depth < 5 && current instanceof Error && current.cause !== undefined; depth++) {
    current = current.cause;
    if (current instanceof Error && current.message) message = current.message;
  }
  return message;
}

/** A server's message cut short when it is not the API's own (a proxy's HTML page, say). */
export function clip(message: string): string {
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}

/** A successful answer whose body is not an event stream (a JSON error, a proxy's login page, nothing
 * at all): read whole and described, since the SDK would take it for an empty stream. Not worth
 * trying again: the same server answers the same way. */
export class NotAnEventStream extends Error {}

/** A service in a sentence: "the Anthropic API", "the OpenAI API", but "Amazon Bedrock". */
export function serviceNamed(service: string): string {
  return /\bAPI$/.test(service) ? `the ${service}` : service;
}

/** Throws NotAnEventStream when `response` is not text/event-stream. */
export async function expectEventStream(response: Response, api: string): Promise<void> {
  const type = response.headers.get("content-type") ?? "";
  if (/^text\/event-stream\b/i.test(type)) return;
  const text = await response.text().catch(() => "");
  const what = text.trim() === "" ? "an empty body" : (htmlPage(text) ?? errorOrText(text));
  throw new NotAnEventStream(`${serviceNamed(api)} answered ${response.status} with ${what} instead of an event stream (${type || "no content type"})`);
}

/** A JSON error's message (with its type), else the text itself, clipped. */
function errorOrText(text: string): string {
  let message: string | undefined;
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown; type?: unknown } | string; message?: unknown };
    const error = json.error;
    message = typeof error === "string" ? error : typeof error?.message === "string" ? `${typeof error.type === "string" ? `${error.type}: ` : ""}${error.message}` : undefined;
  } catch {
    // Not JSON: shown as it is.
  }
  return message !== undefined ? `an error: ${clip(message)}` : clip(text.trim());
}

/** A body that is not the API's own error (a proxy's or gateway's page): the SDK's message is the
 * status and the raw body; an HTML page is named by its title. */
export function foreignBody(message: string, status: number): string {
  const body = message.startsWith(`${status} `) ? message.slice(String(status).length + 1) : message;
  const page = htmlPage(body);
  return page ? `the server answered with ${page}` : clip(body.trim() || "no message");
}

/** An HTML page named by its title, or undefined when `body` is not one. */
function htmlPage(body: string): string | undefined {
  if (!/<(!doctype\s+)?html[\s>]/i.test(body)) return undefined;
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(body)?.[1]?.replace(/\s+/g, " ").trim();
  return title ? `an HTML page, "${clip(title)}" (a proxy or gateway in between?)` : "an HTML page (a proxy or gateway in between?)";
}
