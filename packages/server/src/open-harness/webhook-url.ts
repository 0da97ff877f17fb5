// Where a webhook may point. The spec asks for HTTPS; and since the server makes the requests, a
// webhook must not make it a way into its own machine or network: loopback, private, link-local,
// shared (CGNAT), multicast and reserved addresses are refused, as are names that only mean this
// machine or a local network (localhost, *.local, *.internal, names without a dot), unless the
// server is run with HARNESS_WEBHOOKS_ALLOW_PRIVATE=1, which also lets a loopback URL be plain http
// (local development, tests). Names are checked again at delivery, by the address each resolves to
// (webhook-delivery.ts), so a public name that resolves to a private address is refused too.
import { BlockList, isIP } from "node:net";

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) PRIVATE.addSubnet(net, prefix, "ipv4");
// IPv4 addresses written as IPv6 (::ffff:127.0.0.1) are checked by the IPv4 rules (BlockList does).
for (const [net, prefix] of [["::", 127], ["64:ff9b:1::", 48], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8]] as const) PRIVATE.addSubnet(net, prefix, "ipv6");

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/** Whether `address` (an IP address) is one a webhook may reach only with the switch on. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The host of a URL as an address or a lowercase name (IPv6 without its brackets). */
const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();

function isLocalName(host: string): boolean {
  return host === "localhost" || /\.(localhost|local|internal|localdomain|home\.arpa)\.?$/.test(host) || !host.replace(/\.$/, "").includes(".");
}

function isLoopback(host: string): boolean {
  const family = isIP(host);
  if (family === 0) return host === "localhost" || host.endsWith(".localhost");
  return LOOPBACK.check(host, family === 4 ? "ipv4" : "ipv6");
}

/** Why `text` is no URL a webhook may have, or undefined when it may. */
export function webhookUrlProblem(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not an absolute URL (such as https://example.com/hooks/harness)";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return `must be an https URL, not ${url.protocol.slice(0, -1)}`;
  if (url.username !== "" || url.password !== "") return "must not carry credentials (user:password@): the deliveries are signed with the webhook's secret instead";
  if (url.hash !== "") return "must not have a fragment (#…)";
  const host = hostOf(url);
  if (url.protocol === "http:" && !(allowPrivate && isLoopback(host))) {
    return "must be https (plain http is taken only for loopback addresses, and only on a server run with HARNESS_WEBHOOKS_ALLOW_PRIVATE=1)";
  }
  const local = isIP(host) ? isPrivateAddress(host) : isLocalName(host);
  if (local && !allowPrivate) {
    return `names ${host}, an address of this machine or its network: refused unless the server is run with HARNESS_WEBHOOKS_ALLOW_PRIVATE=1`;
  }
  return undefined;
}
