// Why the server refused a WebSocket handshake, where the client can learn it. A refused upgrade is
// an HTTP answer (401 a missing or wrong token, 403 a token of another user or a page's origin the
// server does not let in, 400 a bad query, 404 another path, 503 shutting down), but:
// - Node's own WebSocket (undici) reports it as an error event holding an empty TypeError, then a
//   close with code 1006: exactly what it reports when nothing answers at all;
// - the `ws` package's error event says "Unexpected server response: 401" (the status, not the
//   body: the response itself is only given to an 'unexpected-response' listener);
// - browsers give nothing, by design.
// So after a handshake that failed before opening, the client reads the status from the error
// where it is there, and otherwise asks the server's GET /health with its token and user: one small
// request, only after a failed attempt, that fails as fast as the handshake did when the server is
// down. 401 and 403 there are the server's refusal, in its words; an answer of 200, or none, leave
// the failure unexplained (a server that is down, a proxy, a cross-site page the server refuses,
// whose fetch cannot read the answer either).
import { baseUrl } from "./sessions.ts";

export type Refusal = {
  status: number;
  /** "the server refused the WebSocket handshake (401): …", with the server's words when known. */
  message: string;
  /** Retrying cannot change it: a token or an id that the server does not take. */
  final: boolean;
};

/** How long the client waits for /health's answer. */
const ASK_MS = 5_000;
const FINAL = new Set([400, 401, 403]);
/** What each refusal means, when the server's own words cannot be read. */
const MEANING: Record<number, string> = {
  400: "a bad userId, sessionId or since",
  401: "a missing or wrong token",
  403: "the token is another user's, or this page's origin is not among the server's HARNESS_ALLOWED_ORIGINS",
  404: "no WebSocket endpoint at this URL's path",
  426: "something between the client and the server dropped the upgrade",
  503: "the server is shutting down",
};

export function refusal(status: number, words = MEANING[status]): Refusal {
  return { status, message: `the server refused the WebSocket handshake (${status})${words ? `: ${words}` : ""}`, final: FINAL.has(status) };
}

/** The refusal a WebSocket's error message names (the `ws` package's), if it names one. */
export function refusalSaid(error: string | undefined): Refusal | undefined {
  const status = /^Unexpected server response: (\d{3})\b/.exec(error ?? "")?.[1];
  return status ? refusal(Number(status)) : undefined;
}

/** Asks the server at `url` whether it refuses `token` for `userId`: the refusal, or undefined when
 * it takes them or does not answer. Never rejects. */
export async function askWhyRefused(fetch: typeof globalThis.fetch, url: string, userId: string, token: string | undefined): Promise<Refusal | undefined> {
  try {
    const headers: Record<string, string> = { "x-harness-user": userId, ...(token ? { authorization: `Bearer ${token}` } : {}) };
    const answer = await fetch(`${baseUrl(url)}/health`, { headers, signal: AbortSignal.timeout(ASK_MS) });
    if (answer.status !== 401 && answer.status !== 403) return undefined;
    const body = (await answer.json().catch(() => undefined)) as { error?: unknown } | undefined;
    return refusal(answer.status, typeof body?.error === "string" && body.error ? body.error : undefined);
  } catch {
    return undefined;
  }
}
