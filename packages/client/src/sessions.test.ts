import { test } from "node:test";
import assert from "node:assert/strict";
import { createSessionsApi, type SessionsApiOptions } from "./sessions.ts";

type Sent = { url: string; method: string; headers: Record<string, string>; body: unknown };

/** A fetch that records each request and answers `status` with `body` (JSON unless a string). */
function scripted(status: number, body: unknown) {
  const sent: Sent[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    sent.push({ url: String(input), method: init?.method ?? "GET", headers, body: init?.body === undefined ? undefined : JSON.parse(String(init.body)) });
    return new Response(typeof body === "string" ? body : JSON.stringify(body), { status, statusText: status === 502 ? "Bad Gateway" : "" });
  };
  return { sent, fetch };
}

const api = (fetch: typeof globalThis.fetch, options: Partial<SessionsApiOptions> = {}) => createSessionsApi({ url: "wss://example.com/harness/", userId: "me", token: "t", fetch, ...options });

test("calls go over http(s) under the base URL's path, with the token as a bearer and the user named", async () => {
  const { sent, fetch } = scripted(201, { sessionId: "new" });
  await api(fetch).fork("a.b", { messageId: "m1" });
  await api(fetch, { url: "ws://127.0.0.1:7700?x=1#y", token: undefined }).create({ title: "t" });
  assert.deepEqual(sent, [
    { url: "https://example.com/harness/sessions/a.b/fork", method: "POST", headers: { authorization: "Bearer t", "content-type": "application/json" }, body: { userId: "me", messageId: "m1" } },
    { url: "http://127.0.0.1:7700/sessions", method: "POST", headers: { "content-type": "application/json" }, body: { userId: "me", title: "t" } },
  ]);
  const list = scripted(200, []);
  await api(list.fetch).list();
  await api(scripted(200, { sessionId: "x", deleted: true }).fetch).remove("x");
  assert.deepEqual(list.sent.map((s) => [s.method, s.url, s.body]), [["GET", "https://example.com/harness/sessions?userId=me", undefined]]);
});

test("an answer that is not what the server sends is an Error saying what is wrong with it", async () => {
  const summary = { sessionId: "a", title: null, status: "idle", messageCount: 0, createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z" };
  assert.deepEqual(await api(scripted(200, [{ ...summary, extra: 1 }]).fetch).list(), [summary]);
  await assert.rejects(api(scripted(200, [summary, { ...summary, title: 3, updatedAt: undefined }]).fetch).list(), {
    message: "GET /sessions: the server's answer is not what it should be: [1].title: must be a string or null; [1].updatedAt: is missing",
  });
  await assert.rejects(api(scripted(200, { sessions: [] }).fetch).list(), {
    message: "GET /sessions: the server's answer is not what it should be: the answer: must be an array",
  });
  await assert.rejects(api(scripted(201, { sessionId: "x", prompt: 1 }).fetch).fork("s"), {
    message: "POST /sessions/s/fork: the server's answer is not what it should be: prompt: must be a string",
  });
  await assert.rejects(api(scripted(200, "<html>").fetch).list(), /^Error: GET \/sessions: the server's answer is not JSON/);
});

test("an HTTP error without the server's JSON is named by its status", async () => {
  await assert.rejects(api(scripted(502, "<html>proxy</html>").fetch).list(), (error: Error & { status: number }) => {
    assert.equal(error.message, "GET /sessions answered 502 Bad Gateway");
    assert.equal(error.status, 502);
    return true;
  });
});

test("bad options and arguments are refused before anything is sent", async () => {
  const { sent, fetch } = scripted(200, []);
  assert.throws(() => api(fetch, { url: "ftp://example.com" }), { message: `url: must be http(s) or ws(s), got "ftp://example.com"` });
  assert.throws(() => api(fetch, { url: "not a url" }), { message: `url: is not a URL: "not a url"` });
  // As the client's constructor says it: a user id the server would refuse is refused here.
  assert.throws(() => api(fetch, { userId: "" }), { message: `userId: must be 1 to 128 letters, digits, '.', '_' or '-', got ""` });
  assert.throws(() => api(fetch, { userId: "a b" }), { message: `userId: must be 1 to 128 letters, digits, '.', '_' or '-', got "a b"` });
  assert.throws(() => api(fetch, { userId: ".." }), { message: `userId: must not be '.' or '..', got ".."` });
  assert.throws(() => api(fetch, { userId: undefined }), { message: "userId: is required" });
  assert.throws(() => api(fetch, { token: "" }), { message: "token: must be a non-empty string when given" });
  await assert.rejects(api(fetch).rename("..", "x"), { message: `sessionId: must be a non-empty string other than "." and "..", got ".."` });
  await assert.rejects(api(fetch).fork("", {}), { message: `sessionId: must be a non-empty string other than "." and "..", got ""` });
  assert.deepEqual(sent, []);
});

test("listFiles asks for a session's files starting with a prefix, and checks the answer", async () => {
  const { sent, fetch } = scripted(200, { paths: ["src/", "src.md"] });
  assert.deepEqual(await api(fetch).listFiles("a b", "src dir/#x&y"), ["src/", "src.md"]);
  assert.deepEqual(sent.map((s) => [s.method, s.url, s.headers.authorization]), [["GET", "https://example.com/harness/sessions/a%20b/files?userId=me&prefix=src+dir%2F%23x%26y", "Bearer t"]]);
  await assert.rejects(api(scripted(200, { paths: ["a", 3] }).fetch).listFiles("s", ""), {
    message: "GET /sessions/s/files: the server's answer is not what it should be: paths: must be an array of strings",
  });
  await assert.rejects(api(scripted(404, { error: 'no session "s"' }).fetch).listFiles("s", "x"), { message: `GET /sessions/s/files answered 404: no session "s"`, status: 404 });
  await assert.rejects(api(fetch).listFiles("s", 3 as unknown as string), { message: "prefix: must be a string, got 3" });
  const stopped = new AbortController();
  stopped.abort();
  await assert.rejects(api(globalThis.fetch, { url: "http://127.0.0.1:9" }).listFiles("s", "", { signal: stopped.signal }), { name: "AbortError" });
});

test("get() reads a session's state over HTTP, and says an answer without one", async () => {
  const state = { status: "idle", messages: [{ id: "u", role: "user", content: "hi", status: "complete" }] };
  const read = scripted(200, { sessionId: "a.b", state });
  assert.deepEqual(await api(read.fetch).get("a.b"), { sessionId: "a.b", state });
  assert.deepEqual(read.sent.map((s) => [s.method, s.url]), [["GET", "https://example.com/harness/sessions/a.b?userId=me"]]);
  await assert.rejects(api(scripted(200, { sessionId: "a", state: { status: "idle" } }).fetch).get("a"), {
    message: "GET /sessions/a: the server's answer is not what it should be: state: must be an object with status and messages",
  });
  await assert.rejects(api(scripted(404, { error: 'no session "x"' }).fetch).get("x"), { message: 'GET /sessions/x answered 404: no session "x"' });
});
