// The client SDK on a connection that goes silent without closing (the server's machine powered
// off, a NAT mapping dropped): a TCP proxy between client and server stops forwarding, and the
// client, which no longer hears the server's pings, drops the connection and reconnects with `since`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isDeepStrictEqual } from "node:util";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WsWebSocket from "ws";
import { createHarnessClient, type ConnectionStatus, type WebSocketFactory, type WebSocketLike } from "@harness/client";
import { startServer } from "@harness/server";
import { createFakeRunner } from "@harness/session";
import { startTcpProxy, waitFor } from "@harness/test-utils";

const sockets: [string, WebSocketFactory | undefined][] = [
  ["Node's own WebSocket", undefined],
  ["the ws package's WebSocket", (url) => new WsWebSocket(url) as unknown as WebSocketLike],
];

for (const [kind, webSocket] of sockets) {
  test(`on ${kind}, the client stays on a quiet connection and reconnects from a silent one`, async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), "harness-silence-"));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    const server = await startServer({
      port: 0, dataDir, env: {}, log: () => {}, heartbeatMs: 100,
      runnerFactory: () => Object.assign(createFakeRunner(), { async stop() {} }),
    });
    t.after(() => server.close());
    const proxy = await startTcpProxy({ port: Number(new URL(server.url).port) });
    t.after(() => proxy.close());
    const session = { userId: "u", sessionId: "quiet" };
    const client = createHarnessClient({
      url: proxy.url, ...session, silenceMs: 1_500, reconnect: { minDelayMs: 20, maxDelayMs: 50 }, ...(webSocket && { webSocket }),
    });
    t.after(() => client.close());
    const statuses: ConnectionStatus[] = [];
    client.on("connection", (status) => statuses.push(status));
    await client.connect();

    // The server's pings (every 100 ms) keep a connection with no frames alive for longer than
    // silenceMs; the wide margin lets a loaded machine stall this process for a second unharmed.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.deepEqual(statuses, ["connecting", "open"]);

    proxy.blackhole();
    const other = createHarnessClient({ url: server.url, ...session });
    t.after(() => other.close());
    await other.connect();
    other.submit("said while the first client heard nothing");
    await other.waitFor((s) => s.messages.length > 0, 15_000);
    await waitFor(() => client.connection !== "open", "the silent connection to be dropped");
    proxy.resume();

    const fresh = createHarnessClient({ url: server.url, ...session });
    t.after(() => fresh.close());
    const snapshot = await fresh.connect();
    const state = await client.waitFor((s) => isDeepStrictEqual(s, snapshot), 15_000);
    assert.equal(state.messages[0].content, "said while the first client heard nothing");
    assert.equal(client.connection, "open");
  });
}
