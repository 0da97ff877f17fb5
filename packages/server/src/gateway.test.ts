// The gateway through real sockets, with hand-driven runners: auth, query validation, shared
// sessions, eviction and reload.
import { test } from "node:test";
import assert from "node:assert/strict";
import WebSocket from "ws";
import { MinimalClient, rawHttp } from "@harness/test-utils";
import { startServer, type HarnessServer } from "./index.ts";
import { WS_MAX_PAYLOAD } from "./websocket.ts";
import { fakeRunners, tempDir, upgradeAnswer, waitFor } from "./test-helpers.ts";

async function withServer(
  options: Parameters<typeof startServer>[0],
  body: (server: HarnessServer, runners: ReturnType<typeof fakeRunners>) => Promise<void>,
): Promise<void> {
  const dir = await tempDir();
  const runners = fakeRunners();
  const server = await startServer({ port: 0, dataDir: dir.path, log: () => {}, runnerFactory: runners.factory, env: {}, ...options });
  try {
    await body(server, runners);
  } finally {
    await server.close();
    await dir.remove();
  }
}

test("startServer prints where it listens, and /health answers ok", async () => {
  const lines: string[] = [];
  await withServer({ log: (line) => lines.push(line) }, async (server) => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.ok(lines.includes(`Harness listening on ${server.url}`));
    const res = await fetch(`${server.url}/health`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true, sessions: 0, clients: 0, runs: 0 });
  });
});

test("binding a non-loopback interface without a token is refused", async () => {
  const dir = await tempDir();
  try {
    await assert.rejects(startServer({ host: "0.0.0.0", port: 0, dataDir: dir.path, env: {}, log: () => {} }), /without a token/);
    await assert.rejects(startServer({ port: 0, dataDir: dir.path, env: { HARNESS_HOST: "192.168.1.10" }, log: () => {} }), /HARNESS_TOKEN/);
    await assert.rejects(startServer({ port: 70_000, dataDir: dir.path, env: {}, log: () => {} }), /^Error: port must be a whole number from 0 to 65535, got 70000$/);
  } finally {
    await dir.remove();
  }
});

test("with a token, HTTP and WebSocket requests need it in the Authorization header or ?token=", async () => {
  await withServer({ token: "s3cret" }, async (server) => {
    assert.equal((await fetch(`${server.url}/health`)).status, 401);
    assert.equal((await fetch(`${server.url}/health`, { headers: { authorization: "Bearer wrong" } })).status, 401);
    assert.equal((await fetch(`${server.url}/health`, { headers: { authorization: "Bearer s3cret" } })).status, 200);
    assert.equal((await fetch(`${server.url}/health?token=s3cret`)).status, 200);

    const ws = `${server.url}/ws?userId=u&sessionId=s`;
    const refused = await upgradeAnswer(ws);
    assert.equal(refused.status, 401);
    assert.match(refused.body, /token/);
    assert.equal((await upgradeAnswer(ws, { Authorization: "Bearer nope" })).status, 401);
    await assert.rejects(MinimalClient.connect(server.url, { userId: "u", sessionId: "s" }), /401/);

    const viaHeader = await MinimalClient.connect(server.url, { userId: "u", sessionId: "s", headers: { Authorization: "Bearer s3cret" } });
    const viaQuery = await MinimalClient.connect(server.url, { userId: "u", sessionId: "s", token: "s3cret" });
    await viaHeader.waitForState(() => true);
    await viaQuery.waitForState(() => true);
    await Promise.all([viaHeader.close(), viaQuery.close()]);
  });
});

test("without a token, requests a web page on another site could make are refused 403", async () => {
  await withServer({ allowedOrigins: ["https://ui.example.com"] }, async (server) => {
    const port = new URL(server.url).port;
    const ws = `${server.url}/ws?userId=u&sessionId=s`;
    const evil = await upgradeAnswer(ws, { Origin: "https://evil.example" });
    assert.equal(evil.status, 403);
    assert.match(JSON.parse(evil.body).error, /web page at https:\/\/evil\.example.*HARNESS_ALLOWED_ORIGINS=https:\/\/evil\.example/);
    const sandboxed = await upgradeAnswer(ws, { Origin: "null" });
    assert.equal(sandboxed.status, 403);
    assert.equal(
      JSON.parse(sandboxed.body).error,
      'refused a request from a page whose origin is "null" (a file or a sandboxed page): without HARNESS_TOKEN only pages on this machine may use this server; set HARNESS_TOKEN',
    );
    const rebound = await upgradeAnswer(ws, { Host: `attacker.example:${port}` });
    assert.equal(rebound.status, 403);
    assert.match(JSON.parse(rebound.body).error, /host "attacker\.example:\d+".*loopback/);

    // Pages on this machine, allowed pages, and programs that send no Origin get in.
    for (const origin of [`http://localhost:${port}`, "http://127.0.0.1:5173", "http://[::1]:3000", "https://ui.example.com"]) {
      assert.equal((await upgradeAnswer(ws, { Origin: origin })).status, 101, origin);
    }
    assert.equal((await upgradeAnswer(ws, { Host: `localhost:${port}` })).status, 101);
    assert.equal((await upgradeAnswer(ws)).status, 101);

    // REST the same way: a cross-site form post creates nothing.
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/sessions`, { method: "POST", headers: { "content-type": "text/plain", ...headers }, body: JSON.stringify({ userId: "u", sessionId: "planted" }) });
    const planted = await post({ Origin: "https://evil.example" });
    assert.equal(planted.status, 403);
    assert.match(((await planted.json()) as { error: string }).error, /evil\.example/);
    assert.equal((await fetch(`${server.url}/sessions?userId=u`, { headers: { Origin: "https://evil.example" } })).status, 403);
    assert.deepEqual(await (await fetch(`${server.url}/sessions?userId=u`)).json(), []);
    // A page on this machine may, with a JSON body, and may read the answer (CORS).
    const allowed = await post({ Origin: "http://localhost:5173", "content-type": "application/json" });
    assert.equal(allowed.status, 201);
    assert.equal(allowed.headers.get("access-control-allow-origin"), "http://localhost:5173");
    assert.equal((await post({ Origin: "http://localhost:5173" })).status, 415, "a form's text/plain body is refused");
    const preflight = (origin: string) =>
      fetch(`${server.url}/sessions`, { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" } });
    const yes = await preflight("http://localhost:5173");
    assert.equal(yes.status, 204);
    assert.equal(yes.headers.get("access-control-allow-origin"), "http://localhost:5173");
    assert.match(yes.headers.get("access-control-allow-methods") ?? "", /POST/);
    assert.match(yes.headers.get("access-control-allow-headers") ?? "", /content-type/);
    assert.equal((await preflight("https://evil.example")).headers.get("access-control-allow-origin"), null);
  });
});

test("with a token, a page on another site gets in with the token and only with it", async () => {
  await withServer({ token: "s3cret" }, async (server) => {
    const ws = `${server.url}/ws?userId=u&sessionId=s`;
    assert.equal((await upgradeAnswer(ws, { Origin: "https://ui.example.com" })).status, 401);
    assert.equal((await upgradeAnswer(`${ws}&token=s3cret`, { Origin: "https://ui.example.com" })).status, 101);
  });
});

test("a request that offers to upgrade to another protocol (curl --http2's h2c) is answered as plain HTTP", async () => {
  await withServer({ token: "s3cret" }, async (server) => {
    const h2c = { Upgrade: "h2c", "HTTP2-Settings": "AAMAAABkAAQAoAAAAAIAAAAA", Connection: "Upgrade, HTTP2-Settings" };
    const health = await upgradeAnswer(`${server.url}/health?token=s3cret`, h2c);
    assert.deepEqual([health.status, JSON.parse(health.body)], [200, { ok: true, sessions: 0, clients: 0, runs: 0 }]);
    const sessions = await upgradeAnswer(`${server.url}/sessions?userId=u&token=s3cret`, h2c);
    assert.deepEqual([sessions.status, JSON.parse(sessions.body)], [200, []]);
    assert.equal((await upgradeAnswer(`${server.url}/sessions?userId=u`, h2c)).status, 401);
    // A WebSocket handshake is still one, whatever its case.
    assert.equal((await upgradeAnswer(`${server.url}/ws?userId=u&sessionId=s&token=s3cret`, { Upgrade: "WebSocket" })).status, 101);
  });
});

test("a /ws request with bad ids or since is refused with 400 and says what is wrong", async () => {
  await withServer({}, async (server) => {
    const cases: [string, RegExp][] = [
      ["sessionId=s", /userId: is required/],
      ["userId=a/b&sessionId=s", /userId: must be 1 to 128 letters/],
      ["userId=..&sessionId=s", /userId: must not be '\.' or '\.\.'/],
      [`userId=u&sessionId=${"x".repeat(129)}`, /sessionId/],
      ["userId=u&sessionId=s&since=-1", /since: must be a non-negative integer/],
      ["userId=u&sessionId=s&since=1.5", /since/],
      ["userId=u&sessionId=s&since=9999999999999999", /^bad \/ws query: since: is larger than any seq \(at most 15 digits\)$/],
      ["userId=u&sessionId=s&sessionId=t", /^bad \/ws query: sessionId: is given 2 times in the query$/],
    ];
    for (const [query, message] of cases) {
      const answer = await upgradeAnswer(`${server.url}/ws?${query}`);
      assert.equal(answer.status, 400, query);
      assert.match(JSON.parse(answer.body).error, message, query);
    }
    assert.equal((await upgradeAnswer(`${server.url}/elsewhere?userId=u&sessionId=s`)).status, 404);
    assert.equal((await fetch(`${server.url}/ws?userId=u&sessionId=s`)).status, 426);
  });
});

test("clients of one session share one instance; other sessions are separate", async () => {
  await withServer({}, async (server, { runners }) => {
    const [a, b, other] = await Promise.all([
      MinimalClient.connect(server.url, { userId: "u", sessionId: "shared" }),
      MinimalClient.connect(server.url, { userId: "u", sessionId: "shared" }),
      MinimalClient.connect(server.url, { userId: "v", sessionId: "shared" }),
    ]);
    await Promise.all([a, b, other].map((c) => c.waitForState(() => true)));
    assert.deepEqual([...runners.keys()].sort(), ["u/shared", "v/shared"], "one runner per session, made once");

    a.send({ type: "submit", prompt: "hello" });
    const run = await runners.get("u/shared")!.nextRun();
    run.emit({ type: "assistant.delta", text: "hi there" }, { type: "run.completed" });
    const done = (s: { status: string; messages: { content: string }[] }) => s.status === "idle" && s.messages[1]?.content === "hi there";
    await Promise.all([a.waitForState(done), b.waitForState(done)]);
    assert.deepEqual(b.state, a.state);
    assert.deepEqual(other.state!.messages, [], "a different user's session of the same name is untouched");
    await Promise.all([a.close(), b.close(), other.close()]);
  });
});

test("an idle session without clients is dropped from memory with its runner, and reloads from storage", async () => {
  await withServer({ sessionIdleMs: 20 }, async (server, { runners }) => {
    const ids = { userId: "u", sessionId: "evict" };
    const client = await MinimalClient.connect(server.url, ids);
    client.send({ type: "submit", prompt: "remember" });
    const first = runners.get("u/evict")!;
    const run = await first.nextRun();
    run.emit({ type: "assistant.delta", text: "noted" }, { type: "run.completed", transcript: [{ role: "user", content: "remember" }, { role: "assistant", content: "noted" }] });
    await client.waitForState((s) => s.status === "idle" && s.messages.length === 2);
    const seen = structuredClone(client.state);
    await client.close();
    await waitFor(() => first.stops === 1, "the runner of the evicted session to stop");

    const again = await MinimalClient.connect(server.url, ids);
    await again.waitForState(() => true);
    assert.deepEqual(again.state, seen);
    const second = runners.get("u/evict")!;
    assert.notEqual(second, first, "a reloaded session gets a new runner");
    again.send({ type: "submit", prompt: "and now?" });
    const next = await second.nextRun();
    assert.deepEqual(next.body.history, [{ role: "user", content: "remember" }, { role: "assistant", content: "noted" }]);
    next.emit({ type: "run.completed" });
    await again.waitForState((s) => s.status === "idle" && s.messages.length === 4);
    await again.close();
  });
});

test("a session with a run in progress stays in memory when its clients leave", async () => {
  await withServer({ sessionIdleMs: 10 }, async (server, { runners }) => {
    const ids = { userId: "u", sessionId: "busy" };
    const client = await MinimalClient.connect(server.url, ids);
    client.send({ type: "submit", prompt: "work while I am away" });
    const runner = runners.get("u/busy")!;
    const run = await runner.nextRun();
    await client.close();
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(runner.stops, 0);
    run.emit({ type: "assistant.delta", text: "done" }, { type: "run.completed" });
    await waitFor(() => runner.stops === 1, "eviction after the run ended");
    const back = await MinimalClient.connect(server.url, ids);
    await back.waitForState(() => true);
    assert.equal(back.state!.messages[1].content, "done");
    await back.close();
  });
});

test("an oversized frame gets an error frame and the connection stays open", async () => {
  await withServer({}, async (server) => {
    const client = await MinimalClient.connect(server.url, { userId: "u", sessionId: "big" });
    await client.waitForState(() => true);
    client.sendRaw(JSON.stringify({ type: "commands", commands: [{ type: "submit", prompt: "x".repeat(3_000_000) }] }));
    await client.waitForErrors(1);
    assert.equal(client.errors[0].code, "frame_too_large");
    assert.equal(client.closed, false);
    await client.close();
  });
});

test("a binary frame gets an error frame saying frames are JSON text, is not run, and the connection stays open", async () => {
  await withServer({}, async (server) => {
    const socket = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws?userId=u&sessionId=binary`, { perMessageDeflate: false });
    const frames: { type: string; code?: string; message?: string }[] = [];
    socket.on("message", (data) => frames.push(JSON.parse(String(data))));
    await waitFor(() => frames.length === 1, "the state frame");
    // Well-formed JSON, a valid command: still refused, as its bytes are not text the client meant.
    socket.send(Buffer.from(JSON.stringify({ type: "commands", commands: [{ type: "configure", config: { model: "m" } }] })), { binary: true });
    socket.send(Buffer.from([0xff, 0xfe, 0x00]), { binary: true });
    await waitFor(() => frames.length === 3, "two error frames");
    const expected = { type: "error", code: "bad_frame", message: "binary frames are not taken: send each frame as JSON text" };
    assert.deepEqual(frames.slice(1), [expected, expected]);
    socket.send(JSON.stringify({ type: "commands", commands: [{ type: "configure", config: { model: "m" } }] }));
    await waitFor(() => frames.length === 4, "the text frame's delta");
    assert.equal(frames[3].type, "delta");
    assert.equal(socket.readyState, WebSocket.OPEN);
    socket.close();
  });
});

test("a frame past the WebSocket limit closes that socket with 1009; the session and its other clients go on", async () => {
  await withServer({}, async (server) => {
    const other = await MinimalClient.connect(server.url, { userId: "u", sessionId: "huge" });
    await other.waitForState(() => true);
    const socket = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws?userId=u&sessionId=huge`, { perMessageDeflate: false });
    await new Promise((resolve) => socket.once("open", resolve));
    const closed = new Promise<number>((resolve) => socket.once("close", resolve));
    socket.on("error", () => {});
    // Sent in fragments, as a client streaming a frame would: the limit holds for the whole.
    const part = Buffer.alloc(WS_MAX_PAYLOAD / 4, "x");
    for (let i = 0; i < 5; i++) socket.send(part, { binary: false, fin: i === 4 });
    assert.equal(await closed, 1009);
    other.send({ type: "configure", config: { model: "still-here" } });
    await other.waitForState((s) => (s as { config?: { model?: string } }).config?.model === "still-here");
    assert.equal(other.closed, false);
    await other.close();
  });
});

test("a client that stops reading is cut off once far behind, not buffered for without end; the others are served", { timeout: 60_000 }, async () => {
  await withServer({}, async (server) => {
    const writer = await MinimalClient.connect(server.url, { userId: "u", sessionId: "stalled" });
    await writer.waitForState(() => true);
    const stalled = new WebSocket(`${server.url.replace(/^http/, "ws")}/ws?userId=u&sessionId=stalled`, { perMessageDeflate: false });
    let frames = 0;
    stalled.on("message", () => frames++);
    await waitFor(() => frames === 1, "the stalled client's state frame");
    const closed = new Promise<number>((resolve) => stalled.once("close", resolve));
    stalled.on("error", () => {});
    (stalled as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    // 40 MB of deltas, one 200 kB system prompt at a time: far more than the socket's buffers hold.
    const count = 200;
    for (let i = 0; i < count; i++) writer.send({ type: "configure", config: { systemPrompt: `${i}`.padEnd(200_000, "x") } });
    const systemPrompt = (s: object) => (s as { config?: { systemPrompt?: string } }).config?.systemPrompt;
    await writer.waitForState((s) => systemPrompt(s)?.startsWith(`${count - 1}`) === true, 30_000);
    (stalled as unknown as { _socket: { resume(): void } })._socket.resume();
    assert.equal(await closed, 1006, "cut off, without a close handshake");
    assert.ok(frames < count + 1, `${frames} frames reached the stalled client`);
    assert.equal(writer.closed, false);
    await writer.close();
  });
});

test("a request the HTTP parser cannot read is answered with its status and a JSON error saying why; the server keeps serving", async () => {
  await withServer({}, async (server) => {
    const cases: [string, string, string][] = [
      ["FOO /sessions HTTP/1.1\r\nHost: localhost\r\n\r\n", "400 Bad Request", "not an HTTP request this server can read: Invalid method encountered"],
      ["POST /sessions HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", "400 Bad Request", "not an HTTP request this server can read: Duplicate Content-Length"],
      [`GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`, "431 Request Header Fields Too Large", "the request's headers are too large"],
    ];
    for (const [request, status, error] of cases) {
      const answer = await rawHttp(server.url, request);
      assert.match(answer, new RegExp(`^HTTP/1.1 ${status}\r\n`), request.slice(0, 40));
      assert.match(answer, /\r\nContent-Type: application\/json; charset=utf-8\r\n/);
      assert.deepEqual(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)), { error });
    }
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
  });
});

test("a handshake the WebSocket layer rejects does not keep its session in memory", async () => {
  await withServer({ sessionIdleMs: 10 }, async (server, { runners }) => {
    const answer = await upgradeAnswer(`${server.url}/ws?userId=u&sessionId=half`, { "Sec-WebSocket-Version": "7" });
    assert.equal(answer.status, 400);
    await waitFor(() => runners.get("u/half")?.stops === 1, "the session to be dropped");
  });
});

test("a client that stops answering pings is cut off (and so no longer holds its session); one that answers stays", async () => {
  await withServer({ heartbeatMs: 100 }, async (server) => {
    const url = `${server.url.replace("http", "ws")}/ws?userId=u&sessionId=gone`;
    const silent = new WebSocket(url, { autoPong: false });
    const answering = new WebSocket(url.replace("gone", "here"));
    await Promise.all([silent, answering].map((ws) => new Promise((resolve) => ws.once("message", resolve))));
    const closed = new Promise<number>((resolve) => silent.once("close", (code) => resolve(code)));
    assert.equal(await closed, 1006, "cut off, not closed politely");
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(answering.readyState, WebSocket.OPEN, "a client that answers stays");
    answering.close();
  });
});

test("GET /healthz answers {ok: true} to anyone, token or not, for a load balancer's liveness check; /health keeps the token check", async () => {
  for (const token of ["s3cret", undefined]) {
    await withServer({ token }, async (server) => {
      const live = await fetch(`${server.url}/healthz`);
      assert.equal(live.status, 200, `token ${token}`);
      assert.deepEqual(await live.json(), { ok: true });
      assert.equal((await fetch(`${server.url}/healthz`, { method: "HEAD" })).status, 200);
      assert.equal((await fetch(`${server.url}/health`)).status, token ? 401 : 200);
    });
  }
});
