import { test } from "node:test";
import assert from "node:assert/strict";
import { HarnessClient, type ClientOptions, type WebSocketLike } from "./client.ts";
import { fakeServer } from "./test-helpers.ts";
import type { HarnessState } from "@harness/protocol";
import type { RunAvailable } from "./index.ts";

const state: HarnessState = { status: "idle", messages: [] };
const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));
const settled = (p: Promise<unknown>) => Promise.race([p.then(() => "resolved", () => "rejected"), tick(100).then(() => "pending")]);
const options = (factory: (url: string) => WebSocketLike, reconnect: ClientOptions["reconnect"] = { minDelayMs: 1, maxDelayMs: 2 }) =>
  ({ url: "http://h", userId: "u", sessionId: "s", webSocket: factory, reconnect }) satisfies ClientOptions;

/** A client connected to a fake server at `seq`, with the state `initial`. */
async function connected(initial: HarnessState = state, seq = 1, reconnect?: ClientOptions["reconnect"]) {
  const server = fakeServer();
  const client = new HarnessClient(options(server.factory, reconnect));
  const connecting = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state: initial, seq });
  await connecting;
  return { server, client };
}

/** Errors of listeners, caught where the client reports them (the browser's reportError). */
function reportedErrors(t: { after(fn: () => void): void }): unknown[] {
  const errors: unknown[] = [];
  const global = globalThis as { reportError?: (error: unknown) => void };
  const before = global.reportError;
  global.reportError = (error) => errors.push(error);
  t.after(() => (global.reportError = before));
  return errors;
}

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

test("a connection closed because the server no longer accepts its token is not reopened, and the client says why", async () => {
  const { server, client } = await connected();
  const errors: unknown[] = [];
  client.on("error", (e) => errors.push(e));
  server.sockets[0].drop(4401);
  await tick();
  await tick();
  assert.equal(server.sockets.length, 1);
  assert.equal(client.connection, "closed");
  assert.deepEqual(errors, [
    { message: "the server closed the connection: the token is no longer accepted; gave up: retrying with this token cannot change that", code: "token_refused" },
  ]);
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
  await assert.rejects(client.connect(), /^Error: could not connect to ws:\/\/h\/ws\?userId=u&sessionId=s: the WebSocket handshake failed \(code 1006\): nothing answers there, or the server refused it \(a missing or wrong token, a bad userId or sessionId, or this page's origin not among the server's HARNESS_ALLOWED_ORIGINS\)$/);
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

test("connect() while a reconnect is under way connects now, asking for the whole state; later drops still reconnect", async () => {
  const server = fakeServer(false);
  const client = new HarnessClient(options(server.factory));
  const first = client.connect();
  server.sockets[0].open();
  server.sockets[0].serve({ type: "state", state, seq: 5 });
  await first;
  server.sockets[0].drop();
  await tick();
  assert.match(server.sockets[1].url, /since=5/, "the reconnect's handshake is under way");
  const again = client.connect();
  assert.equal(server.sockets.length, 3, "a socket asking for the whole state replaces it");
  assert.doesNotMatch(server.sockets[2].url, /since=/);
  server.sockets[2].open();
  server.sockets[2].serve({ type: "state", state, seq: 5 });
  assert.deepEqual(await again, state);
  server.sockets[2].drop();
  await tick(20);
  assert.equal(server.sockets.length, 4, "a later drop is a drop, not a failed connect()");
  assert.equal(client.connection, "reconnecting");
  client.close();
});

test("a listener that throws is reported, and the client carries on: it reconnects, connect() resolves, commands go out", async (t) => {
  const reported = reportedErrors(t);
  const server = fakeServer();
  const client = new HarnessClient(options(server.factory));
  client.on("state", () => {
    throw new Error("render bug");
  });
  client.on("connection", (status) => {
    throw new Error(`UI bug on ${status}`);
  });
  const connecting = client.connect();
  client.submit("queued before open");
  await tick();
  assert.deepEqual(server.sockets[0].sent.map((f) => JSON.parse(f).commands[0].prompt), ["queued before open"]);
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  assert.equal(await settled(connecting), "resolved");
  client.submit("sent while open");
  assert.equal(server.sockets[0].sent.length, 2);
  server.sockets[0].drop();
  await tick(20);
  assert.equal(server.sockets.length, 2, "reconnected");
  assert.deepEqual(
    reported.map((e) => (e as Error).message),
    ["UI bug on connecting", "UI bug on open", "render bug", "UI bug on reconnecting", "UI bug on open"],
  );
  client.close();
});

test("a delta already applied is not applied again", async () => {
  const running: HarnessState = { status: "running", messages: [{ id: "a", role: "assistant", content: "", status: "running" }] };
  const { server, client } = await connected(running, 1);
  const deltas: number[] = [];
  client.on("delta", (_operations, seq) => deltas.push(seq));
  const delta = { type: "delta" as const, seq: 2, operations: [{ type: "append-text" as const, path: ["messages", "0", "content"], value: "hi" }] };
  server.sockets[0].serve(delta);
  server.sockets[0].serve(delta);
  server.sockets[0].serve({ ...delta, seq: 9 });
  assert.equal(client.state?.messages[0].content, "hihi", "a seq skipped (after a crash) is fine; a repeated one is dropped");
  assert.deepEqual(deltas, [2, 9]);
  client.close();
});

test("waitFor() fails when the client closes or its session is deleted", async () => {
  const { server, client } = await connected();
  const deleted = client.waitFor((s) => s.status === "running");
  server.sockets[0].drop(4404);
  await assert.rejects(deleted, /^Error: waitFor: the client closed: the session was deleted$/);
  const again = client.connect();
  await tick();
  server.sockets[1].serve({ type: "state", state, seq: 1 });
  await again;
  const closed = client.waitFor((s) => s.status === "running");
  client.close();
  await assert.rejects(closed, /^Error: waitFor: the client closed: close\(\) was called$/);
});

test("commands on a closed client throw; close() drops those still waiting", async () => {
  const server = fakeServer(false);
  const client = new HarnessClient(options(server.factory));
  assert.throws(() => client.submit("before connect"), /^Error: the client is closed: call connect\(\) before sending commands$/);
  client.connect().catch(() => {});
  client.submit("waiting");
  client.close();
  assert.throws(() => client.submit("after close"), /the client is closed/);
  const again = client.connect();
  server.sockets[1].open();
  server.sockets[1].serve({ type: "state", state, seq: 1 });
  await again;
  assert.deepEqual(server.sockets[1].sent, [], "nothing from before close() went out");
  client.close();
});

test("commands queued while offline go out as the frames they were sent in; frames past the server's limits throw", async () => {
  const { server, client } = await connected();
  server.sockets[0].drop();
  for (let i = 0; i < 60; i++) client.approve(`t${i}`);
  client.send(...Array.from({ length: 100 }, (_, i) => ({ type: "deny" as const, toolCallId: `u${i}` })));
  assert.throws(() => client.send(...Array.from({ length: 101 }, () => ({ type: "cancel" as const }))), /^RangeError: a frame holds at most 100 commands, not 101/);
  assert.throws(() => client.submit("x".repeat(1024 * 1024)), /^RangeError: a submit of 1,048,6\d\d bytes is over the 1,048,576 bytes \(1 MiB\) a frame may hold: shorten its prompt$/);
  assert.throws(() => client.send({ type: "cancel" }, { type: "steer", message: "x".repeat(1024 * 1024) }), /^RangeError: 2 commands of 1,048,6\d\d bytes in all are over the 1,048,576 bytes \(1 MiB\) a frame may hold: send them in several calls$/);
  for (let i = 0; i < 840; i++) client.cancel();
  assert.throws(() => client.cancel(), /^RangeError: 1000 commands already wait for the connection \(at most 1000\)$/);
  await tick(20);
  const frames = server.sockets[1].sent.map((f) => JSON.parse(f).commands.length);
  assert.equal(frames.length, 901);
  assert.deepEqual(frames.slice(0, 62), [...Array(60).fill(1), 100, 1]);
  client.close();
});

test("a base URL's path is kept: the WebSocket is under it", async () => {
  for (const [url, expected] of [
    ["https://example.com/harness/", "wss://example.com/harness/ws?"],
    ["http://example.com/harness?x=1", "ws://example.com/harness/ws?"],
    ["ws://127.0.0.1:7700", "ws://127.0.0.1:7700/ws?"],
  ]) {
    const server = fakeServer(false);
    const client = new HarnessClient({ ...options(server.factory), url });
    client.connect().catch(() => {});
    assert.ok(server.sockets[0].url.startsWith(expected), server.sockets[0].url);
    client.close();
  }
  assert.throws(() => new HarnessClient({ ...options(fakeServer().factory), url: "not a url" }), /^Error: url: is not a URL such as http:\/\/127\.0\.0\.1:7700, got "not a url"$/);
});

test("failed reconnects say why each time, and stop after maxAttempts", async () => {
  const server = fakeServer(false);
  const client = new HarnessClient(options(server.factory, { minDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 }));
  const connecting = client.connect();
  server.sockets[0].open();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  await connecting;
  const errors: string[] = [];
  client.on("error", (e) => errors.push(`${e.code}: ${e.message}`));
  const waiting = assert.rejects(client.waitFor((s) => s.status === "running"), /waitFor: the client closed: could not reconnect/);
  server.sockets[0].drop();
  for (let i = 1; i <= 3; i++) {
    await tick(20);
    server.sockets[i]?.drop(1006);
  }
  await tick(20);
  assert.equal(server.sockets.length, 4, "the first connection and three attempts");
  assert.equal(client.connection, "closed");
  assert.equal(errors.length, 3);
  assert.match(errors[0], /^reconnect_failed: could not reconnect to ws:\/\/h\/ws\?userId=u&sessionId=s&since=1: the WebSocket handshake failed \(code 1006\): .*; trying again$/);
  assert.match(errors[2], /; gave up after 3 attempts$/);
  await waiting;
});

test("a host that accepts each reconnect and drops it before any state counts as failed attempts: backoff and maxAttempts hold", async () => {
  const server = fakeServer();
  const client = new HarnessClient(options(server.factory, { minDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 }));
  const connecting = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  await connecting;
  const errors: string[] = [];
  client.on("error", (e) => errors.push(`${e.code}: ${e.message}`));
  server.sockets[0].drop();
  for (let i = 1; i <= 5; i++) {
    await tick(20);
    // Open, an error frame, then closed at once (a damaged session, a proxy that drops).
    server.sockets[i]?.serve({ type: "error", message: "cannot open session u/s: damaged", code: "internal" });
    server.sockets[i]?.drop(1011);
  }
  await tick(20);
  assert.equal(server.sockets.length, 4, "the first connection and three attempts, no more");
  assert.equal(client.connection, "closed");
  const failures = errors.filter((e) => e.startsWith("reconnect_failed"));
  assert.equal(failures.length, 3);
  assert.match(failures[0], /the connection closed as soon as it opened \(code 1011\); trying again$/);
  assert.match(failures[2], /gave up after 3 attempts$/);
});

test("a connection that worked for a while starts the attempts over when it drops", async () => {
  const { server, client } = await connected(state, 1, { minDelayMs: 1, maxDelayMs: 2, maxAttempts: 1 });
  server.sockets[0].drop();
  await tick(20);
  // The reconnect works: a delta comes.
  server.sockets[1].serve({ type: "delta", seq: 2, operations: [{ type: "set", path: ["status"], value: "running" }] });
  server.sockets[1].drop();
  await tick(20);
  server.sockets[2].serve({ type: "state", state, seq: 3 });
  assert.equal(client.connection, "open");
  assert.equal(server.sockets.length, 3);
  client.close();
});

test("commands still waiting when the client gives up are dropped and reported, not sent at the next connect()", async () => {
  const server = fakeServer(false);
  const client = new HarnessClient(options(server.factory, { minDelayMs: 1, maxDelayMs: 2, maxAttempts: 1 }));
  const connecting = client.connect();
  server.sockets[0].open();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  await connecting;
  const errors: { code?: string; message: string }[] = [];
  client.on("error", (e) => errors.push(e));
  server.sockets[0].drop();
  client.submit("written while offline");
  await tick(20);
  server.sockets[1].drop(1006);
  await tick(20);
  assert.equal(client.connection, "closed");
  assert.deepEqual(errors.at(-1), { code: "commands_dropped", message: "1 command was not sent: the client closed (could not reconnect to ws://h/ws?userId=u&sessionId=s&since=1: the WebSocket handshake failed (code 1006): nothing answers there, or the server refused it (a missing or wrong token, a bad userId or sessionId, or this page's origin not among the server's HARNESS_ALLOWED_ORIGINS))" });
  const again = client.connect();
  server.sockets[2].open();
  server.sockets[2].serve({ type: "state", state, seq: 1 });
  await again;
  assert.deepEqual(server.sockets[2].sent, [], "nothing stale goes out");
  client.close();
});

test("a snapshot is announced as one, so that a view kept in place from deltas can start over", async () => {
  const { server, client } = await connected(state, 1);
  const seen: string[] = [];
  client.on("snapshot", (s, seq) => seen.push(`snapshot ${seq} ${s.status}`));
  client.on("delta", (_ops, seq) => seen.push(`delta ${seq}`));
  server.sockets[0].serve({ type: "delta", seq: 2, operations: [{ type: "set", path: ["status"], value: "running" }] });
  server.sockets[0].drop();
  await tick(20);
  // Too much was missed: the server sends the whole state instead of the deltas.
  server.sockets[1].serve({ type: "state", state: { status: "idle", messages: [] }, seq: 40 });
  assert.deepEqual(seen, ["delta 2", "snapshot 40 idle"]);
  client.close();
});

test("switchSession() follows another session on a new connection, with the same listeners; nothing of the old one reaches them", async () => {
  const { server, client } = await connected({ ...state, messages: [{ id: "m1", role: "user", content: "old", status: "complete" }] }, 7);
  const seen: string[] = [];
  client.on("state", (s) => seen.push(s.messages.map((m) => m.content).join(",") || "(empty)"));
  const errors: string[] = [];
  client.on("error", (e) => errors.push(`${e.code}: ${e.message}`));
  const waiting = client.waitFor((s) => s.status === "running");
  server.sockets[0].drop();
  client.submit("meant for the old session");
  const switched = client.switchSession("other");
  assert.equal(client.sessionId, "other");
  assert.equal(client.state, undefined);
  assert.equal(client.seq, undefined);
  await assert.rejects(waiting, /^Error: waitFor: the client switched to session other$/);
  assert.deepEqual(errors, ["commands_dropped: 1 command was not sent: the client switched to session other"]);
  await tick();
  const socket = server.sockets.at(-1)!;
  assert.match(socket.url, /sessionId=other$/, "the whole state of the new session is asked for, not since the old seq");
  // A late frame of an old socket changes nothing.
  server.sockets[0].serve({ type: "delta", seq: 8, operations: [{ type: "set", path: ["status"], value: "running" }] });
  socket.serve({ type: "state", state: { ...state, messages: [{ id: "n1", role: "user", content: "new", status: "complete" }] }, seq: 2 });
  assert.equal((await switched).messages[0].content, "new");
  assert.deepEqual(seen, ["new"]);
  assert.equal(client.seq, 2);
  client.submit("now");
  assert.deepEqual(JSON.parse(socket.sent[0]).commands, [{ type: "submit", prompt: "now" }]);
  // Later drops reconnect to the new session.
  socket.drop();
  await tick(20);
  assert.match(server.sockets.at(-1)!.url, /sessionId=other&since=2$/);
  client.close();
});

test("switchSession() twice quickly follows the last: the first call fails, its socket is closed, its frames are not shown", async () => {
  const { server, client } = await connected();
  const seen: string[] = [];
  client.on("state", (s) => seen.push(s.messages.map((m) => m.content).join(",") || "(empty)"));
  const first = client.switchSession("first");
  const second = client.switchSession("second");
  await assert.rejects(first, /^Error: the client switched to session second$/);
  await tick();
  const [toFirst, toSecond] = server.sockets.slice(-2);
  assert.match(toFirst.url, /sessionId=first$/);
  assert.equal(toFirst.readyState, 3, "the first session's socket is closed");
  toFirst.serve({ type: "state", state: { ...state, messages: [{ id: "a", role: "user", content: "of first", status: "complete" }] }, seq: 3 });
  toSecond.serve({ type: "state", state: { ...state, messages: [{ id: "b", role: "user", content: "of second", status: "complete" }] }, seq: 5 });
  assert.equal((await second).messages[0].content, "of second");
  assert.deepEqual(seen, ["of second"]);
  assert.equal(client.sessionId, "second");
  client.close();
});

test("switchSession() to what is no session id is refused, saying why, and the client stays in its session", async () => {
  const { server, client } = await connected();
  for (const bad of ["", 7, undefined, "..", ".", "a/b"]) {
    await assert.rejects(client.switchSession(bad as string), /^Error: switchSession: sessionId: (is required|must be a string, got 7|must be 1 to 128 letters, digits, '\.', '_' or '-', got "(|a\/b)"|must not be '\.' or '\.\.', got "\.\.?")$/);
  }
  assert.equal(client.sessionId, "s");
  assert.equal(client.connection, "open");
  assert.equal(server.sockets.length, 1);
  assert.deepEqual(client.state, state);
  client.close();
});

test("what the runs have available (a command menu's entries) is read from the state with the SDK's own types, and follows a part that changed", async () => {
  const available: RunAvailable = { model: "claude-sonnet-4-5", slashCommands: ["help", "deploy"], tools: ["Bash"], mcpServers: [{ name: "docs", status: "pending" }], agents: [], skills: [], outputStyle: "default" };
  const { server, client } = await connected({ ...state, available });
  server.sockets[0].serve({ type: "delta", seq: 2, operations: [{ type: "set", path: ["available", "mcpServers"], value: [{ name: "docs", status: "connected" }] }] });
  const now: RunAvailable | undefined = client.state?.available;
  assert.deepEqual([now?.slashCommands, now?.mcpServers], [["help", "deploy"], [{ name: "docs", status: "connected" }]]);
  client.close();
});

test("each state is a new object, and the parts a delta did not touch are the same objects as before", async () => {
  const done: HarnessState["messages"] = [
    { id: "u0", role: "user", content: "hello", status: "complete" },
    { id: "a0", role: "assistant", content: "hi", status: "complete" },
  ];
  const { server, client } = await connected({ status: "idle", messages: done });
  const socket = server.sockets[0];
  const before = client.state!;
  const states: HarnessState[] = [];
  client.on("state", (s) => states.push(s));
  socket.serve({ type: "delta", seq: 2, operations: [{ type: "append-text", path: ["messages", "1", "content"], value: "!" }] });
  socket.serve({ type: "delta", seq: 3, operations: [{ type: "set", path: ["status"], value: "running" }] });
  assert.notEqual(states[0], states[1]);
  assert.equal(states[0].messages[1].content, "hi!", "a state already given is not changed afterwards");
  assert.equal(states[0].messages, states[1].messages);
  assert.equal(before.messages[1].content, "hi");
  assert.equal(states[0].messages[0], before.messages[0]);
  client.close();
});

test("stopAgent sends stop-agent naming the Task call", async () => {
  const server = fakeServer();
  const client = new HarnessClient(options(server.factory));
  const connecting = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  await connecting;
  client.stopAgent("toolu_task");
  assert.deepEqual(JSON.parse(server.sockets[0].sent.at(-1)!), { type: "commands", commands: [{ type: "stop-agent", toolCallId: "toolu_task" }] });
  client.close();
});

test("background sends background naming the Bash call, or none", async () => {
  const server = fakeServer();
  const client = new HarnessClient(options(server.factory));
  const connecting = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  await connecting;
  client.background("toolu_bash");
  assert.deepEqual(JSON.parse(server.sockets[0].sent.at(-1)!), { type: "commands", commands: [{ type: "background", toolCallId: "toolu_bash" }] });
  client.background();
  assert.deepEqual(JSON.parse(server.sockets[0].sent.at(-1)!), { type: "commands", commands: [{ type: "background" }] });
  client.close();
});

test("killShell sends kill-shell naming the background shell", async () => {
  const server = fakeServer();
  const client = new HarnessClient(options(server.factory));
  const connecting = client.connect();
  await tick();
  server.sockets[0].serve({ type: "state", state, seq: 1 });
  await connecting;
  client.killShell("ab12cd");
  assert.deepEqual(JSON.parse(server.sockets[0].sent.at(-1)!), { type: "commands", commands: [{ type: "kill-shell", shellId: "ab12cd" }] });
  client.close();
});
