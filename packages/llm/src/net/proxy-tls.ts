// The TLS connection to an https:// proxy, which Node makes from its proxy configuration alone
// (the agent's `proxyEnv`): its own CAs are not the agent's, and its failures reach a request
// looking like the target host's. Both are reached through Node's internal kProxyConfig and the
// socket the agent's createConnection returns, there being no public way to either.
import type http from "node:http";
import { TLSSocket } from "node:tls";

type ProxyConfig = { protocol?: string; proxyConnectionOptions?: Record<string, unknown> };

/** The errors of connections to an https:// proxy, with the proxy's host (and port) to name. */
const proxyErrors = new WeakMap<object, string>();

/** The host of the https:// proxy whose connection failed with `error`, if it did. */
export function proxyHostOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? proxyErrors.get(error) : undefined;
}

/** Makes the https:// proxy of `agent` (none: nothing to do) trusted with `ca` on top of the
 * process's CAs, when given, and its connection's errors known to proxyHostOf as the proxy's.
 * `proxyUrl`: the proxy's URL, of which only the host is kept (never its credentials). */
export function secureProxyOf(agent: http.Agent, proxyUrl: string | undefined, ca: string[] | undefined): void {
  const config = internal<ProxyConfig | null>(agent, "kProxyConfig");
  if (config?.protocol !== "https:" || proxyUrl === undefined) return;
  if (ca && config.proxyConnectionOptions) config.proxyConnectionOptions.ca = ca;
  const host = new URL(proxyUrl).host;
  const connecting = agent as unknown as { createConnection: (...args: unknown[]) => unknown };
  const create = connecting.createConnection;
  connecting.createConnection = function (this: http.Agent, ...args: unknown[]) {
    const socket = create.apply(this, args);
    if (socket instanceof TLSSocket && toProxy(agent, socket)) {
      // First, so the mark is there when the agent passes the error on to the request.
      socket.prependListener("error", (error: unknown) => {
        if (typeof error === "object" && error !== null) proxyErrors.set(error, host);
      });
    }
    return socket;
  };
}

/** Whether `socket`, just made by `agent`, is a connection to the proxy: an http agent's TLS
 * sockets all are, an https agent's only those that wait for a tunnel through it. */
function toProxy(agent: http.Agent, socket: TLSSocket): boolean {
  return (agent as { protocol?: string }).protocol === "http:" || internal<boolean>(socket, "kWaitForProxyTunnel") === true;
}

function internal<T>(holder: object, name: string): T | undefined {
  const symbol = Object.getOwnPropertySymbols(holder).find((found) => found.description === name);
  return symbol && (holder as Record<symbol, T>)[symbol];
}
