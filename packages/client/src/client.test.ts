import { test } from "node:test";
import assert from "node:assert/strict";
import { HarnessClient, type WebSocketLike } from "./client.ts";
import type { HarnessState, ServerMessage } from "@harness/protocol";

/** A scripted server side: every socket the client opens is recorded with its URL and frames. */
function fakeServer() {
  const sockets: (WebSocketLike & { url: string; sent: string[]; serve(frame: ServerMessage): void; drop(code?: number): void })[] = [];
  const factory = (url: string) => {
    const socket = {
      url,
      sent: [] as string[],
      readyState: 0,
      onopen: null as WebSocketLike["onopen"],
      onmessage: null as WebSocketLike["onmessage"],
      onclose: null as WebSocketLike["onclose"],
      onerror: null as WebSocketLike["onerror"],
      send(data: string) { this.sent.push(data); },
      close() { this.drop(); },
      serve(frame: ServerMessage) { this.onmessage?.({ data: JSON.stringify(frame) }); },
      drop(code = 1006) {
        if (this.readyState === 3) return;
        this.readyState = 3;
        this.onclose?.({ code, reason: "" });
      },
    };
    sockets.push(socket);
    queueMicrotask(() => {
      socket.readyState = 1;
      socket.onopen?.({});
    });
    return socket;
  };
  return { sockets, factory };
}

const state: HarnessState = { status: "idle", messages: [] };
const tick = () => new Promise((r) => setTimeout(r, 5));

test("applies the snapshot and deltas, and reconnects with since after a drop", async () => {
  const server = fakeServer();
  const client = new HarnessClient({ url: "http://127.0.0.1:1", userId: "u", sessionId: "s", webSocket: server.factory, reconnect: { minDelayMs: 1 } });
  const connected = client.connect();
  await tick();
  assert.match(server.sockets[0].url, /^ws:\/\/127\.0\.0\.1:1\/ws\?userId=u&sessionId=s$/);
  server.sockets[0].serve({ type: "state", state, seq: 3 });
  await connected;
  server.sockets[0].serve({ type: "delta", seq: 4, operations: [{ type: "set", path: ["status"], value: "running" }] });
  assert.equal(client.state?.status, "running");
  assert.equal(client.seq, 4);

  server.sockets[0].drop();
  client.submit("queued while offline");
  await tick();
  assert.equal(server.sockets.length, 2);
  assert.match(server.sockets[1].url, /since=4/);
  assert.deepEqual(JSON.parse(server.sockets[1].sent[0]), { type: "commands", commands: [{ type: "submit", prompt: "queued while offline" }] });
  client.close();
});

test("a delta that does not fit triggers a fresh snapshot instead of a wrong state", async () => {
  const server = fakeServer();
  const client = new HarnessClient({ url: "http://h", userId: "u", sessionId: "s", webSocket: server.factory, reconnect: { minDelayMs: 1 } });
  const connected = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  await connected;
  server.sockets[0].serve({ type: "delta", seq: 2, operations: [{ type: "append-text", path: ["messages", "9", "content"], value: "x" }] });
  await tick();
  assert.equal(server.sockets.length, 2);
  assert.doesNotMatch(server.sockets[1].url, /since=/);
  assert.deepEqual(client.state, state);
  client.close();
});

test("error frames reach error listeners; the token goes in the query", async () => {
  const server = fakeServer();
  const client = new HarnessClient({ url: "https://h:9", userId: "u", sessionId: "s", token: "t0k", webSocket: server.factory });
  const errors: unknown[] = [];
  client.on("error", (e) => errors.push(e));
  const connected = client.connect();
  await tick();
  assert.match(server.sockets[0].url, /^wss:\/\/h:9\/ws\?.*token=t0k/);
  server.sockets[0].serve({ type: "state", state, seq: 0 });
  await connected;
  server.sockets[0].serve({ type: "error", message: "unknown command", code: "unknown_command", command: 0 });
  assert.deepEqual(errors, [{ message: "unknown command", code: "unknown_command", command: 0 }]);
  client.close();
  assert.equal(client.connection, "closed");
});

test("a connection closed because its session was deleted is not reopened", async () => {
  const server = fakeServer();
  const client = new HarnessClient({ url: "http://127.0.0.1:1", userId: "u", sessionId: "s", webSocket: server.factory, reconnect: { minDelayMs: 1 } });
  const errors: string[] = [];
  client.on("error", (e) => errors.push(e.code ?? ""));
  const connected = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  await connected;
  server.sockets[0].serve({ type: "error", message: "session \"s\" was deleted", code: "session_deleted" });
  server.sockets[0].drop(4404);
  await tick();
  await tick();
  assert.equal(server.sockets.length, 1);
  assert.equal(client.connection, "closed");
  assert.deepEqual(errors, ["session_deleted"]);
});

test("connect() fails when the connection closes before the state came, and opens nothing more", async () => {
  const server = fakeServer();
  const client = new HarnessClient({ url: "http://127.0.0.1:1", userId: "u", sessionId: "s", token: "secret", webSocket: server.factory, reconnect: { minDelayMs: 1 } });
  const connected = client.connect();
  assert.equal(client.connect(), connected, "a second call while connecting waits for the same connection");
  await tick();
  server.sockets[0].onerror?.({ message: "Unexpected server response: 401" });
  server.sockets[0].drop(1006);
  await assert.rejects(connected, (error: Error) => {
    assert.match(error.message, /^could not connect to ws:\/\/127\.0\.0\.1:1\/ws\?userId=u&sessionId=s&token=…: the connection closed before the session's state arrived \(code 1006, Unexpected server response: 401\)$/);
    assert.doesNotMatch(error.message, /secret/, "the token stays out of the message");
    return true;
  });
  await tick();
  assert.equal(server.sockets.length, 1);
  assert.equal(client.connection, "closed");

  // Asked again, it tries again.
  const again = client.connect();
  await tick();
  assert.equal(server.sockets.length, 2);
  server.sockets[1].serve({ type: "state", state, seq: 2 });
  assert.deepEqual(await again, state);
  assert.equal(await client.connect(), client.state, "connected: the state at once");
  assert.equal(server.sockets.length, 2);
  client.close();
});

test("a handshake that fails says what a refusal means, since the socket cannot tell", async () => {
  const client = new HarnessClient({
    url: "http://h",
    userId: "u",
    sessionId: "s",
    webSocket: () => {
      const socket: WebSocketLike = { readyState: 0, send() {}, close() {}, onopen: null, onmessage: null, onclose: null, onerror: null };
      setTimeout(() => {
        socket.onerror?.({});
        socket.onclose?.({ code: 1006, reason: "" });
      }, 1);
      return socket;
    },
  });
  await assert.rejects(client.connect(), /^Error: could not connect to ws:\/\/h\/ws\?userId=u&sessionId=s: the WebSocket handshake failed \(code 1006\): nothing answers there, or the server refused it \(a missing or wrong token, or a bad userId or sessionId\)$/);
});

test("close() while connecting fails the connect() call", async () => {
  const server = fakeServer();
  const client = new HarnessClient({ url: "http://h", userId: "u", sessionId: "s", webSocket: server.factory });
  const connected = client.connect();
  client.close();
  await assert.rejects(connected, /closed before it connected/);
  await tick();
  assert.equal(client.connection, "closed");
});

test("a URL the WebSocket refuses fails connect() with its reason", async () => {
  const client = new HarnessClient({
    url: "http://h",
    userId: "u",
    sessionId: "s",
    webSocket: () => {
      throw new SyntaxError("invalid URL");
    },
  });
  await assert.rejects(client.connect(), /cannot open ws:\/\/h\/ws\?userId=u&sessionId=s: invalid URL/);
  assert.equal(client.connection, "closed");
});

test("connect() after close() asks for the whole state, so it resolves even when nothing changed", async () => {
  const server = fakeServer();
  const client = new HarnessClient({ url: "http://h", userId: "u", sessionId: "s", webSocket: server.factory });
  const first = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state, seq: 7 });
  await first;
  client.close();
  const again = client.connect();
  await tick();
  assert.doesNotMatch(server.sockets[1].url, /since=/);
  server.sockets[1].serve({ type: "state", state, seq: 7 });
  assert.deepEqual(await again, state);
  client.close();
});
