// Why `harness chat` could not connect, in words a user can act on. A refused WebSocket handshake
// does not say its HTTP status (see the client SDK), so the server's /health is asked, which
// answers under the same token check: nothing there, a token refused, something that is no
// Harness server (another program on the port, or a path too many in the URL), or something else.
// After a failed handshake the client SDK has asked /health already: the chat reads that answer
// (healthWatch) instead of asking again.
import { serverEndpoint } from "./server-url.ts";

/** What GET /health answered: `ok` when a Harness server says it is, the `error` it gives when it
 * refuses; null when nothing answered. */
export type HealthAnswer = { status: number; ok: boolean; error?: string } | null;

/** A fetch for the client SDK that keeps what its GET /health got; `asked()` is undefined until it asks. */
export function healthWatch(fetchFn: typeof fetch = fetch): { fetch: typeof fetch; asked(): HealthAnswer | undefined } {
  let asked: HealthAnswer | undefined;
  const watching = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const isHealth = /\/health$/.test(URL.parse(input instanceof Request ? input.url : String(input))?.pathname ?? "");
    try {
      const response = await fetchFn(input, init);
      if (isHealth) asked = await answerOf(response.clone());
      return response;
    } catch (error) {
      if (isHealth) asked = null;
      throw error;
    }
  }) as typeof fetch;
  return { fetch: watching, asked: () => asked };
}

/** What to tell the user instead of `failure`, or `failure` itself when /health says nothing more.
 * `asked`: what /health answered the client SDK, if it asked. */
export async function diagnoseConnectFailure(url: string, token: string | undefined, failure: string, asked?: HealthAnswer): Promise<string> {
  let health: URL;
  try {
    health = serverEndpoint(url, "health");
  } catch {
    return failure;
  }
  const base = `${health.protocol}//${health.host}`;
  const answer = asked !== undefined ? asked : await healthOf(health, token);
  if (answer === null) {
    return `nothing answers at ${base}: is the server running? (start it with \`harness serve\` or \`npm start\`; --url or HARNESS_URL for another address)`;
  }
  if (answer.status === 401) {
    return token
      ? `the server at ${base} refused the token: set HARNESS_TOKEN to the token it was started with`
      : `the server at ${base} needs a token: set HARNESS_TOKEN to the token it was started with`;
  }
  if (answer.status === 404 || (!answer.ok && answer.error === undefined)) {
    const root = new URL("/health", health);
    if (root.href !== health.href && (await healthOf(root, token))?.ok) {
      return `no Harness server at ${url}, but there is one at ${base}: leave the path out of --url (or HARNESS_URL)`;
    }
    return `what answers at ${url} is not a Harness server (GET ${health.pathname}: ${answer.status}): give --url (or HARNESS_URL) the address \`harness serve\` printed`;
  }
  // The server's own words for why it refused (a host name it does not answer without a token, …).
  if (!answer.ok && answer.error !== undefined) return `the server at ${base} refused: ${answer.error}`;
  return failure;
}

async function healthOf(health: URL, token: string | undefined): Promise<HealthAnswer> {
  try {
    return await answerOf(await fetch(health, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(3000) }));
  } catch {
    return null;
  }
}

async function answerOf(response: Response): Promise<HealthAnswer> {
  const body: unknown = await response.json().catch(() => undefined);
  const fields = typeof body === "object" && body !== null ? (body as { ok?: unknown; error?: unknown }) : {};
  return { status: response.status, ok: response.ok && fields.ok === true, ...(typeof fields.error === "string" && { error: fields.error }) };
}
