// A sessions.connect channel whose session is deleted while it is idle is closed at once (4404),
// without waiting for its client to send anything.
import { test } from "node:test";
import assert from "node:assert/strict";
import { WebSocket } from "ws";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, V1 } from "./open-harness-support.ts";

test("an idle connect channel is closed once its session is deleted, saying so", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const { session: other } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const open = (id: string) => new WebSocket(`${h.server.url.replace(/^http/, "ws")}${V1}/sessions/${id}/connect?userId=alice`);
    const ws = open(session.id);
    const stays = open(other.id);
    const got: { type: string; code?: string }[] = [];
    ws.on("message", (data) => got.push(JSON.parse(String(data))));
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    await Promise.all([ws, stays].map((socket) => new Promise((resolve) => socket.once("open", resolve))));
    assert.equal((await api(`${V1}/sessions/${session.id}`, { method: "DELETE" })).status, 204);
    const code = await Promise.race([closed, new Promise((resolve) => setTimeout(() => resolve("still open"), 15_000))]);
    assert.equal(code, 4404);
    assert.deepEqual(got.map((message) => [message.type, message.code]), [["error", "session_not_found"]]);
    assert.equal(stays.readyState, WebSocket.OPEN, "the channel of another session stays");
    stays.close();
  } finally {
    await h.close();
  }
});
