// The SDK transport of a remote (http, sse) MCP server, through the proxy that `env` names, with
// its extra CA file and client certificate (fetchFor reads them all): a run's env as the harness
// takes it, not a repository's settings' (harness-env.ts). And how a failed request is said.
import { fetchFor } from "@harness/llm/http-fetch";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Env, McpRemoteServerConfig } from "./config.ts";
import type { StoredOAuthProvider } from "./oauth-provider.ts";
import { retryingRefused } from "./refused-fetch.ts";

export function remoteTransport(config: McpRemoteServerConfig, env: Env, authProvider?: StoredOAuthProvider): StreamableHTTPClientTransport | SSEClientTransport {
  const fetch = fetchFor(env);
  const options = { requestInit: { headers: config.headers }, fetch: authProvider ? retryingRefused(fetch, authProvider) : fetch, ...(authProvider && { authProvider }) };
  const url = new URL(config.url);
  return config.type === "http" ? new StreamableHTTPClientTransport(url, options) : new SSEClientTransport(url, options);
}

/** Whether the entry gives its own credentials (an Authorization header): then no OAuth sign-in
 * is looked for or started. */
export function givesOwnCredentials(config: McpRemoteServerConfig): boolean {
  return Object.keys(config.headers).some((name) => name.toLowerCase() === "authorization");
}

/** fetch() reports "fetch failed" and keeps the reason (refused, DNS, TLS…) in `cause`. */
export function withCause(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? error.cause.message : undefined;
  return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
}
