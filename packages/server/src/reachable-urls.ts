// Where a server can be reached, from the address it is bound to. Bound to every interface
// (0.0.0.0 or ::), its address is no URL anyone can open: loopback stands first (the URL scripts
// and tests read from the first line), then each address of the machine's interfaces, as Vite
// prints them.
import type { AddressInfo } from "node:net";
import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";

export type ReachableUrls = {
  /** The URL to open on this machine. */
  url: string;
  /** The lines that say where it listens; the first begins `Harness listening on <url>`. */
  lines: string[];
};

const WILDCARDS: ReadonlySet<string> = new Set(["0.0.0.0", "::"]);

function urlOf(address: string, port: number): string {
  return `http://${address.includes(":") ? `[${address}]` : address}:${port}`;
}

export function reachableUrls(bound: AddressInfo, interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces()): ReachableUrls {
  if (!WILDCARDS.has(bound.address)) {
    const url = urlOf(bound.address, bound.port);
    return { url, lines: [`Harness listening on ${url}`] };
  }
  const ipv6 = bound.address === "::";
  const url = urlOf(ipv6 ? "::1" : "127.0.0.1", bound.port);
  // A link-local IPv6 address (fe80::) needs the interface named in the URL, which browsers refuse.
  const external = Object.values(interfaces)
    .flat()
    .filter((a) => a !== undefined && !a.internal && (a.family === "IPv4" || (ipv6 && !a.address.startsWith("fe80:"))))
    .map((a) => `  on the network: ${urlOf(a!.address, bound.port)}`);
  return { url, lines: [`Harness listening on ${url} (bound to ${bound.address}, every address of this machine)`, ...external] };
}
