import { test } from "node:test";
import assert from "node:assert/strict";
import type { NetworkInterfaceInfo } from "node:os";
import { reachableUrls } from "./reachable-urls.ts";

const nic = (address: string, family: "IPv4" | "IPv6", internal = false) => ({ address, family, internal }) as NetworkInterfaceInfo;
const interfaces = {
  lo: [nic("127.0.0.1", "IPv4", true), nic("::1", "IPv6", true)],
  eth0: [nic("192.168.1.5", "IPv4"), nic("fd00::2", "IPv6"), nic("fe80::1", "IPv6")],
  wlan0: [nic("10.0.0.7", "IPv4")],
};

test("bound to ::, loopback comes first, then every interface's IPv4 and routable IPv6 address", () => {
  assert.deepEqual(reachableUrls({ address: "::", family: "IPv6", port: 7700 }, interfaces), {
    url: "http://[::1]:7700",
    lines: [
      "Harness listening on http://[::1]:7700 (bound to ::, every address of this machine)",
      "  on the network: http://192.168.1.5:7700",
      "  on the network: http://[fd00::2]:7700",
      "  on the network: http://10.0.0.7:7700",
    ],
  });
});

test("bound to one address, that address is the one URL", () => {
  assert.deepEqual(reachableUrls({ address: "192.168.1.5", family: "IPv4", port: 80 }, interfaces), {
    url: "http://192.168.1.5:80",
    lines: ["Harness listening on http://192.168.1.5:80"],
  });
  assert.equal(reachableUrls({ address: "::1", family: "IPv6", port: 1 }, interfaces).url, "http://[::1]:1");
});
