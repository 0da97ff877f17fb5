// Why `harness chat` could not connect, in words a user can act on. A refused WebSocket handshake
// does not say its HTTP status (see the client SDK), so the chat asks the server's /health, which
// answers under the same token check: nothing there, a token refused, or something else.

/** What to tell the user instead of `failure`, or `failure` itself when /health says nothing more. */
export async function diagnoseConnectFailure(url: string, token: string | undefined, failure: string): Promise<string> {
  let health: URL;
  try {
    health = new URL("health", withSlash(url));
    health.protocol = health.protocol === "wss:" || health.protocol === "https:" ? "https:" : "http:";
  } catch {
    return failure;
  }
  const base = `${health.protocol}//${health.host}`;
  let status: number;
  try {
    const response = await fetch(health, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: AbortSignal.timeout(3000) });
    status = response.status;
    await response.body?.cancel();
  } catch {
    return `nothing answers at ${base}: is the server running? (start it with \`harness serve\` or \`npm start\`; --url or HARNESS_URL for another address)`;
  }
  if (status === 401) {
    return token
      ? `the server at ${base} refused the token: set HARNESS_TOKEN to the token it was started with`
      : `the server at ${base} needs a token: set HARNESS_TOKEN to the token it was started with`;
  }
  return failure;
}

function withSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
