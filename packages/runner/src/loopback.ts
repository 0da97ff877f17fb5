// Loopback names, for the servers that answer only requests made for this machine when they have
// no token: a page whose name an attacker points at 127.0.0.1 (DNS rebinding) reaches a loopback
// port with its own name in the Host header.

/** Whether `host` (a host name, without a port) names this machine's loopback interface. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  return bare === "localhost" || bare === "::1" || /^127(\.\d{1,3}){3}$/.test(bare) || bare === "::ffff:127.0.0.1";
}

/** The host name of a Host header ("127.0.0.1:7700", "[::1]:7700", "localhost"), or undefined when
 * it is not one. */
function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

/** Whether a request with Host header `host` was made for a loopback name (no Host, as HTTP/1.0
 * allows, counts as one: a browser always sends it). */
export function forLoopback(host: string | undefined): boolean {
  if (host === undefined) return true;
  const name = hostnameOf(host);
  return name !== undefined && isLoopbackHost(name);
}
