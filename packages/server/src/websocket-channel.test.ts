import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { WebSocket } from "ws";
import type { SessionRegistry } from "./registry.ts";
import { createWebSocketEndpoint } from "./websocket.ts";
import type { WebSocketChannel } from "./websocket-channel.ts";

test("a channel's handshake whose token is revoked while the channel checks it is refused 401, not opened", async (t) => {
  const tokens = new Map([["ann-token-0123456789", "ann"]]);
  let checked!: () => void;
  const checking = new Promise<void>((resolve) => (checked = resolve));
  let asked!: () => void;
  const opening = new Promise<void>((resolve) => (asked = resolve));
  const channel: WebSocketChannel = {
    at: (url) => url.pathname === "/channel",
    async open() {
      asked();
      await checking;
      return { userId: "ann", sessionId: "s1", attach: (ws) => ws.send("attached") };
    },
  };
  const endpoint = createWebSocketEndpoint({ registry: {} as SessionRegistry, token: undefined, userTokens: () => tokens, heartbeatMs: 60_000, log: () => {}, channels: [channel] });
  const server = createServer();
  server.on("upgrade", (req, socket, head) => endpoint.handleUpgrade(req, socket, head));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  t.after(async () => {
    await endpoint.closeAll();
    server.close();
  });
  const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/channel`, { headers: { authorization: "Bearer ann-token-0123456789" } });
  const outcome = new Promise<string>((resolve) => {
    ws.once("unexpected-response", (_req, res) => resolve(`refused ${res.statusCode}`));
    ws.once("open", () => resolve("opened"));
    ws.once("error", () => {});
  });
  await opening;
  tokens.clear();
  endpoint.refuseRevoked();
  checked();
  assert.equal(await outcome, "refused 401");
  ws.terminate();
});
