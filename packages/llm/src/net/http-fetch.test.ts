import assert from "node:assert/strict";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { test, type TestContext } from "node:test";
import { type EventStreamInit, fetchFor, httpFetch } from "./http-fetch.ts";

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

async function serve(t: TestContext, handler: Handler): Promise<{ url: string; ports: number[] }> {
  const ports: number[] = [];
  const server = http.createServer((req, res) => {
    ports.push(req.socket.remotePort ?? 0);
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => handler(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ports };
}

test("sends the method, headers and body, and streams the answer as it comes", async (t) => {
  let release = () => {};
  const { url } = await serve(t, (req, res, body) => {
    res.writeHead(201, "Made", { "content-type": "text/event-stream", "x-seen": `${req.method} ${req.headers["x-api-key"]} ${body}` });
    res.write("first\n");
    release = () => res.end("second\n");
  });
  const response = await httpFetch(`${url}/v1/messages`, { method: "POST", headers: { "x-api-key": "k1" }, body: '{"a":1}' });
  assert.equal(response.status, 201);
  assert.equal(response.statusText, "Made");
  assert.equal(response.headers.get("x-seen"), 'POST k1 {"a":1}');
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  assert.equal(decoder.decode((await reader.read()).value), "first\n", "the first chunk arrives before the answer ends");
  release();
  assert.equal(decoder.decode((await reader.read()).value), "second\n");
  assert.equal((await reader.read()).done, true);
});

test("keeps the connection for the next request", async (t) => {
  const { url, ports } = await serve(t, (_req, res) => res.end("ok"));
  for (let i = 0; i < 3; i++) assert.equal(await (await httpFetch(url)).text(), "ok");
  assert.equal(new Set(ports).size, 1, `one connection, got ports ${ports.join(", ")}`);
});

test("an abort rejects with the signal's reason, before the answer and while its body is read", async (t) => {
  const answers: http.ServerResponse[] = [];
  const { url } = await serve(t, (_req, res) => answers.push(res));
  const nextAnswer = async () => {
    while (answers.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    return answers.shift()!;
  };
  const early = new AbortController();
  const pending = httpFetch(url, { signal: early.signal });
  await nextAnswer();
  early.abort(new Error("stop now"));
  await assert.rejects(pending, /stop now/);

  const before = new AbortController();
  before.abort(new Error("never sent"));
  await assert.rejects(httpFetch(url, { signal: before.signal }), /never sent/);

  const late = new AbortController();
  const streaming = httpFetch(url, { signal: late.signal });
  const answer = await nextAnswer();
  answer.writeHead(200);
  answer.write("partial");
  const response = await streaming;
  const reader = response.body!.getReader();
  await reader.read();
  late.abort(new Error("user cancelled"));
  await assert.rejects(reader.read(), /user cancelled/);
});

test("a refused connection is 'fetch failed' with the cause; a body cut short is 'terminated'", async (t) => {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const freePort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
  await assert.rejects(httpFetch(`http://127.0.0.1:${freePort}/`), (error: Error) => {
    assert.equal(error.message, "fetch failed");
    assert.match(String((error.cause as Error).message), /ECONNREFUSED/);
    return true;
  });

  const { url } = await serve(t, (_req, res) => {
    res.writeHead(200, { "content-length": "100" });
    res.write("only part");
    setTimeout(() => res.socket?.destroy(), 20);
  });
  const response = await httpFetch(url);
  await assert.rejects(response.text(), /terminated/);
});

test("a status without a body has none; a form, a Request and a redirect are sent as fetch sends them", async (t) => {
  const { url } = await serve(t, (req, res, body) => {
    if (req.url === "/moved") {
      res.writeHead(307, { location: "/here" });
      res.end();
    } else if (req.url === "/here") res.end(`followed with ${req.method} ${body}`);
    else if (req.url === "/empty") {
      res.writeHead(204);
      res.end();
    } else res.end(`got ${body.includes("form-data") ? "a form" : body}`);
  });
  const empty = await httpFetch(`${url}/empty`);
  assert.equal(empty.status, 204);
  assert.equal(empty.body, null);
  const form = new FormData();
  form.set("field", "value");
  assert.equal(await (await httpFetch(`${url}/form`, { method: "POST", body: form })).text(), "got a form");
  assert.equal(await (await httpFetch(new Request(`${url}/request`, { method: "POST", body: "as a Request" }))).text(), "got as a Request");
  assert.equal(await (await httpFetch(`${url}/moved`, { method: "POST", body: "the body" })).text(), "followed with POST the body");
});

test("a status a Response cannot hold fails the fetch instead of throwing in the process", async (t) => {
  const raw = net.createServer((socket) => socket.once("data", () => socket.end("HTTP/1.1 999 Odd\r\ncontent-length: 0\r\n\r\n")));
  await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
  t.after(() => raw.close());
  await assert.rejects(httpFetch(`http://127.0.0.1:${(raw.address() as AddressInfo).port}/`), (error: Error) => {
    assert.equal(error.message, "fetch failed");
    assert.match(String((error.cause as Error).message), /status 999/);
    return true;
  });
});

test("a request that cannot be made rejects, as fetch does, rather than throwing", async (t) => {
  const { url } = await serve(t, (_req, res) => res.end("ok"));
  let answer: Promise<Response> | undefined;
  assert.doesNotThrow(() => {
    answer = httpFetch(url, { headers: { "x-broken": "one\ntwo" } });
  });
  await assert.rejects(answer!, TypeError);
  // The fetch after it is served as usual.
  assert.equal(await (await httpFetch(url)).text(), "ok");
});

test("onEventStream is handed a 2xx event stream's response, whose Response then has no body; anything else keeps its body", async (t) => {
  const { url } = await serve(t, (req, res) => {
    if (req.url === "/events") {
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
      res.end("data: 1\n\n");
    } else if (req.url === "/refused") {
      res.writeHead(429, { "content-type": "text/event-stream" });
      res.end("data: busy\n\n");
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"ok":true}');
    }
  });
  let handed: http.IncomingMessage | undefined;
  const init: EventStreamInit = { onEventStream: (res) => (handed = res) };
  const response = await httpFetch(`${url}/events`, init);
  assert.equal(response.status, 200);
  assert.equal(response.body, null);
  assert.ok(handed, "the hook got the response");
  let text = "";
  for await (const chunk of handed) text += String(chunk);
  assert.equal(text, "data: 1\n\n");

  handed = undefined;
  assert.equal(await (await httpFetch(`${url}/refused`, init)).text(), "data: busy\n\n", "an error status is read as usual");
  assert.equal(await (await httpFetch(`${url}/json`, init)).text(), '{"ok":true}');
  assert.equal(handed, undefined);
});

test("fetchFor keeps the fetches of the newest settings only: one dropped closes its idle connections, and its request in flight still completes", async (t) => {
  const open = new Map<number, boolean>();
  let release = () => {};
  const server = http.createServer((req, res) => {
    if (req.url === "/slow") {
      res.write("first ");
      release = () => res.end("second");
    } else res.end("ok");
  });
  server.on("connection", (socket) => {
    open.set(socket.remotePort ?? 0, true);
    socket.on("close", () => open.set(socket.remotePort ?? 0, false));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Settings that differ in NO_PROXY alone get a fetch (and connections) each.
  const settings = (n: number) => ({ NO_PROXY: `kept-${n}.test` });
  const oldest = fetchFor(settings(0));
  assert.equal(await (await oldest(url)).text(), "ok");
  assert.deepEqual([...open.values()], [true], "the connection is kept for the next request");
  const slow = await fetchFor(settings(1))(`${url}/slow`);
  for (let n = 2; n <= 40; n++) fetchFor(settings(n));
  // Sooner than the idle timeout (4 s) would close it.
  for (let waited = 0; open.get([...open.keys()][0]!) && waited < 1_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(open.get([...open.keys()][0]!), false, "the dropped fetch's idle connection is closed");
  release();
  assert.equal(await slow.text(), "first second", "the request in flight completes");
  assert.notEqual(fetchFor(settings(0)), oldest, "the oldest settings were dropped");
  assert.equal(fetchFor(settings(40)), fetchFor(settings(40)), "the newest are kept");
});
