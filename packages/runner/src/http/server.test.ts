import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rawHttp } from "@harness/test-utils";
import { createRunnerClient, RunnerHttpError } from "../client/client.ts";
import { collect, fakeBackend, listen, never, startRunner as start, usage, waitFor, waitForAbort, type TestContext } from "../test-support.ts";
import type { Backend } from "../backend.ts";

const startRunner = (t: TestContext, backend: Backend) => start(t, { backend });
const json = { "content-type": "application/json" };

test("the wire format is one SSE frame per event with id, event and JSON data", async (t) => {
  const { url } = await startRunner(
    t,
    fakeBackend(async (_q, ctx) => {
      ctx.emit({ type: "assistant.delta", text: "x" });
      return { ok: false, message: "boom" };
    }),
  );
  const res = await fetch(`${url}/query`, { method: "POST", headers: json, body: JSON.stringify({ prompt: "p" }) });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const text = await res.text();
  const frames = text.split("\n\n").filter(Boolean);
  assert.equal(frames.length, 3);
  assert.match(frames[0], /^id: 1\nevent: run\.started\ndata: \{"type":"run\.started","seq":1,"requestId":"[^"]+"\}$/);
  assert.equal(frames[1], 'id: 2\nevent: assistant.delta\ndata: {"type":"assistant.delta","seq":2,"text":"x"}');
  assert.equal(frames[2], 'id: 3\nevent: run.error\ndata: {"type":"run.error","seq":3,"message":"boom"}');
});

test("bad bodies get 400 naming the problem, and the runner keeps serving", async (t) => {
  const backend = fakeBackend(async () => ({ ok: true, result: "fine", usage, transcript: [] }));
  const { url, client } = await startRunner(t, backend);
  const post = async (body: string) => {
    const res = await fetch(`${url}/query`, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: res.status, body: (await res.json()) as { error: string } };
  };

  const notJson = await post("{prompt:");
  assert.equal(notJson.status, 400);
  assert.match(notJson.body.error, /^body is not valid JSON/);

  const missing = await post(JSON.stringify({ model: "m" }));
  assert.equal(missing.status, 400);
  assert.match(missing.body.error, /^prompt: /);

  const wrongTypes = await post(JSON.stringify({ prompt: "p", maxTurns: "3", history: "none" }));
  assert.equal(wrongTypes.status, 400);
  assert.match(wrongTypes.body.error, /history: .*; maxTurns: |maxTurns: .*; history: /);

  // Nesting that would overflow the encoder of the run's last event is refused up front.
  const deep = await post(`{"prompt":"p","history":[{"role":"user","content":[{"type":"text","text":"[{","x":${"[".repeat(5000)}${"]".repeat(5000)}}]}]}`);
  assert.equal(deep.status, 400);
  assert.equal(deep.body.error, "body nests arrays and objects more than 1000 deep");

  const emptyId = await post(JSON.stringify({ prompt: "p", userMessageId: "" }));
  assert.equal(emptyId.status, 400);
  assert.equal(emptyId.body.error, "userMessageId: must not be empty");
  const manyTurns = await post(JSON.stringify({ prompt: "p", maxTurns: 10_001 }));
  assert.equal(manyTurns.status, 400);
  assert.match(manyTurns.body.error, /^maxTurns: /);

  // The conversation's totals before the run are counts and amounts: none is below zero.
  const spent = (calls: number, inputTokens: number, costUsd = 0.01) => ({ prompt: "p", spentBefore: { usage: { inputTokens, outputTokens: 5, costUsd }, calls, apiMs: 10, wallMs: 20 } });
  const negativeCalls = await post(JSON.stringify(spent(-1, 10)));
  assert.equal(negativeCalls.status, 400);
  assert.match(negativeCalls.body.error, /^spentBefore\.calls: /);
  const negativeTokens = await post(JSON.stringify(spent(1, -10)));
  assert.equal(negativeTokens.status, 400);
  assert.match(negativeTokens.body.error, /^spentBefore\.usage\.inputTokens: /);
  const negativeCost = await post(JSON.stringify(spent(1, 10, -0.5)));
  assert.equal(negativeCost.status, 400);
  assert.match(negativeCost.body.error, /^spentBefore\.usage\.costUsd: /);

  // Not made U+FFFD on the way to the model, nor refused by it as a failed run.
  const lone = await post('{"prompt":"half \\ud83d of a pair"}');
  assert.equal(lone.status, 400);
  assert.equal(lone.body.error, "prompt: must be well-formed Unicode (it holds a lone surrogate)");

  const notObject = await post("[1,2]");
  assert.equal(notObject.status, 400);
  assert.match(notObject.body.error, /^body: /);

  assert.equal(backend.runs.length, 0);
  const events = await collect(client.query({ prompt: "after" }, { signal: never() }));
  assert.equal(events.at(-1)?.type, "run.completed");
});

test("a query's cwd must be a directory inside the workspace, links resolved", async (t) => {
  const workspace = mkdtempSync(join(tmpdir(), "harness-runner-cwd-"));
  t.after(() => rmSync(workspace, { recursive: true, force: true }));
  mkdirSync(join(workspace, "sub"));
  writeFileSync(join(workspace, "file.txt"), "x");
  symlinkSync(tmpdir(), join(workspace, "out"));
  const backend = fakeBackend(async () => ({ ok: true, result: "fine", usage, transcript: [] }));
  const { url, client } = await start(t, { backend, workspace });
  for (const [cwd, message] of [
    ["../..", "cwd: ../.. is outside the workspace"],
    ["/etc", "cwd: /etc is outside the workspace"],
    ["out", "cwd: out is outside the workspace"],
    ["missing", "cwd: missing does not exist in the workspace"],
    ["file.txt", "cwd: file.txt is not a directory"],
    ["sub\u0000x", "cwd: must not hold a NUL character"],
  ]) {
    const res = await fetch(`${url}/query`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ prompt: "p", cwd }) });
    assert.equal(res.status, 400, cwd);
    assert.deepEqual(await res.json(), { error: message });
  }
  assert.equal(backend.runs.length, 0);
  for (const cwd of ["sub", join(workspace, "sub"), "."]) {
    const events = await collect(client.query({ prompt: "in", cwd }, { signal: never() }));
    assert.equal(events.at(-1)?.type, "run.completed", cwd);
  }
});

test("a last event that cannot be encoded ends the stream as run.error saying so, its seq next in line", async (t) => {
  const transcript = [{ role: "user" as const, content: [{ type: "text", text: "x", weight: 1n }] }];
  const { client } = await startRunner(t, fakeBackend(async () => ({ ok: true, result: "done", usage, transcript: transcript as never })));
  const events = await collect(client.query({ prompt: "p" }, { signal: never() }));
  assert.deepEqual(
    events.map((e) => [e.seq, e.type]),
    [
      [1, "run.started"],
      [2, "run.error"],
    ],
  );
  assert.match((events[1] as { message: string }).message, /^the run's last event could not be sent: .*BigInt/);
});

test("a query may name its run: run.started carries that id, attach finds it, and a second query with it gets 409", async (t) => {
  const backend = fakeBackend(async () => ({ ok: true, result: "fine", usage, transcript: [] }));
  const { url, client } = await startRunner(t, backend);
  const events = await collect(client.query({ prompt: "p", requestId: "run-42" }, { signal: never() }));
  assert.deepEqual(events[0], { type: "run.started", seq: 1, requestId: "run-42" });
  const again = await collect(client.events("run-42", { afterSeq: 0, signal: never() }));
  assert.deepEqual(again, events);
  const reused = await fetch(`${url}/query`, { method: "POST", headers: json, body: JSON.stringify({ prompt: "p", requestId: "run-42" }) });
  assert.equal(reused.status, 409);
  assert.match(((await reused.json()) as { error: string }).error, /requestId run-42 exists already/);
  const bad = await fetch(`${url}/query`, { method: "POST", headers: json, body: JSON.stringify({ prompt: "p", requestId: "../x y" }) });
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /^requestId: requestId must be 1 to 128/);
  assert.equal(backend.runs.length, 1);
});

test("a body that is not JSON by its Content-Type, or not UTF-8, is refused before any run starts", async (t) => {
  const backend = fakeBackend(async () => ({ ok: true, result: "fine", usage, transcript: [] }));
  const { url, client } = await startRunner(t, backend);
  const body = JSON.stringify({ prompt: "p" });
  // A web page may send these without asking first (a form, or fetch in no-cors mode): were they
  // taken, any page open in a browser beside a runner without a token could start runs on it.
  for (const type of ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
    const res = await fetch(`${url}/query`, { method: "POST", headers: { "content-type": type }, body });
    assert.equal(res.status, 415, type);
    assert.equal(((await res.json()) as { error: string }).error, `the body is ${type.split(";")[0]}: send JSON, with Content-Type: application/json`);
  }
  const untyped = await fetch(`${url}/query`, { method: "POST", body: new Blob([body]) });
  assert.equal(untyped.status, 415);
  assert.equal(((await untyped.json()) as { error: string }).error, "the body has no Content-Type: send JSON, with Content-Type: application/json");
  const put = await fetch(`${url}/workspaces/w1`, { method: "PUT", headers: { "content-type": "text/plain" }, body: JSON.stringify({ workspace: join(tmpdir(), "never-made") }) });
  assert.equal(put.status, 415, "PUT /workspaces/:id");

  // Not silently made U+FFFD: the prompt would reach the model other than it was sent.
  const bytes = Buffer.concat([Buffer.from('{"prompt":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
  const notUtf8 = await fetch(`${url}/query`, { method: "POST", headers: { "content-type": "application/json" }, body: bytes });
  assert.equal(notUtf8.status, 400);
  assert.equal(((await notUtf8.json()) as { error: string }).error, "body is not valid UTF-8");

  assert.equal(backend.runs.length, 0);
  const events = await collect(client.query({ prompt: "after" }, { signal: never() }));
  assert.equal(events.at(-1)?.type, "run.completed");
});

test("a body over 8 MiB gets 413", async (t) => {
  const { url, client } = await startRunner(t, fakeBackend(async () => ({ ok: false, message: "unused" })));
  const res = await fetch(`${url}/query`, { method: "POST", headers: json, body: JSON.stringify({ prompt: "x".repeat(9 * 1024 * 1024) }) });
  assert.equal(res.status, 413);
  assert.match(((await res.json()) as { error: string }).error, /larger than/);
  assert.equal((await client.health()).ok, true);
});

test("unknown routes get a 404 JSON error; known ones asked with another method a 405 saying which", async (t) => {
  const { url } = await startRunner(t, fakeBackend(async () => ({ ok: false, message: "unused" })));
  for (const [method, path] of [["GET", "/nope"], ["POST", "/runs/r1/nope"], ["GET", "/runs//events"]]) {
    const res = await fetch(url + path, { method });
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.match(((await res.json()) as { error: string }).error, /not found/);
  }
  for (const [method, path, allow] of [
    ["GET", "/query", "POST"],
    ["POST", "/health", "GET, HEAD"],
    ["GET", "/rewind", "POST"],
    ["GET", "/runs/r1/approve", "POST"],
    ["POST", "/runs/r1/events", "GET"],
  ]) {
    const res = await fetch(url + path, { method });
    assert.equal(res.status, 405, `${method} ${path}`);
    assert.equal(res.headers.get("allow"), allow);
    assert.equal(((await res.json()) as { error: string }).error, `${method} is not allowed on ${path}: use ${allow}`);
  }
});

test("a request the HTTP parser cannot read is answered 400 with a JSON error saying why", async (t) => {
  const { url, client } = await startRunner(t, fakeBackend(async () => ({ ok: false, message: "unused" })));
  const answer = await rawHttp(url, "POST /query HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
  assert.match(answer, /^HTTP\/1.1 400 Bad Request\r\n/);
  assert.deepEqual(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)), { error: "not an HTTP request this server can read: Invalid character in chunk size" });
  assert.equal((await client.health()).ok, true);
});

test("a request the parser cannot read on a connection kept alive after an answer is answered 400 too", async (t) => {
  const { url } = await startRunner(t, fakeBackend(async () => ({ ok: false, message: "unused" })));
  const socket = connect(Number(new URL(url).port), "127.0.0.1");
  let answer = "";
  socket.on("data", (data: Buffer) => (answer += data.toString()));
  const closed = new Promise((resolve) => socket.on("close", resolve));
  socket.write("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n");
  await waitFor(() => answer.includes("\r\n\r\n{"), "the health answer");
  await waitFor(() => answer.endsWith("}"), "the whole health answer");
  const first = answer.length;
  socket.write("FOO / HTTP/1.1\r\nHost: localhost\r\n\r\n");
  await closed;
  const second = answer.slice(first);
  assert.match(second, /^HTTP\/1.1 400 Bad Request\r\n/);
  assert.deepEqual(JSON.parse(second.slice(second.indexOf("\r\n\r\n") + 4)), { error: "not an HTTP request this server can read: Invalid method encountered" });
});

test("a backend that throws ends the run with run.error and the runner keeps serving", async (t) => {
  let calls = 0;
  const backend = fakeBackend(async (_q, ctx) => {
    calls++;
    if (calls === 1) {
      ctx.emit({ type: "assistant.delta", text: "partial" });
      throw new Error("backend exploded");
    }
    return { ok: true, result: "second", usage, transcript: [] };
  });
  const { client } = await startRunner(t, backend);
  const first = await collect(client.query({ prompt: "1" }, { signal: never() }));
  assert.deepEqual(first.at(-1), { type: "run.error", seq: 3, message: "backend exploded" });
  const second = await collect(client.query({ prompt: "2" }, { signal: never() }));
  assert.equal(second.at(-1)?.type, "run.completed");
});

test("ids in a query or a rewind too long to name anything are refused before any lookup, saying how long they may be", async (t) => {
  const backend = fakeBackend(async () => ({ ok: true, result: "fine", usage, transcript: [] }));
  const { url } = await startRunner(t, backend);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(url + path, { method: "POST", headers: json, body: JSON.stringify(body) });
    return { status: res.status, error: ((await res.json()) as { error: string }).error };
  };
  assert.deepEqual(await post("/query", { prompt: "p", resumeSessionId: "s".repeat(1_000_000) }), {
    status: 400,
    error: "resumeSessionId: must be at most 256 characters (it has 1000000)",
  });
  assert.deepEqual(await post("/rewind", { userMessageId: "m".repeat(10_000) }), { status: 400, error: "userMessageId: must be at most 200 characters (it has 10000)" });
  // A backend finds its stored session by this id (a file named after it): never a path.
  for (const resumeSessionId of ["../../../etc/passwd", "a/b", "x\0y", ""]) {
    const answer = await post("/query", { prompt: "p", resumeSessionId });
    assert.equal(answer.status, 400, resumeSessionId);
    assert.match(answer.error, /resumeSessionId must be letters, digits or \. _ : -/);
  }
  assert.equal(backend.runs.length, 0);
});

test("a query or a rewind with a field the runner does not know is refused naming it, not run without it", async (t) => {
  const backend = fakeBackend(async () => ({ ok: true, result: "fine", usage, transcript: [] }));
  const { url } = await startRunner(t, backend);
  const post = async (path: string, body: unknown) => {
    const res = await fetch(url + path, { method: "POST", headers: json, body: JSON.stringify(body) });
    return { status: res.status, error: ((await res.json()) as { error: string }).error };
  };
  assert.deepEqual(await post("/query", { prompt: "p", maxTurn: 3 }), { status: 400, error: 'body: unknown field "maxTurn"' });
  assert.deepEqual(await post("/query", { prompt: "p", modle: "m", sytemPrompt: "s" }), { status: 400, error: 'body: unknown fields "modle", "sytemPrompt"' });
  assert.deepEqual(await post("/rewind", { userMessageId: "m1", dryrun: true }), { status: 400, error: 'body: unknown field "dryrun"' });
  // Field names are echoed in part, and only the first few of many.
  const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`${"k".repeat(5000)}${i}`, i]));
  const refused = await post("/query", { prompt: "p", ...many });
  assert.equal(refused.status, 400);
  assert.match(refused.error, /^body: unknown fields "k{40}…" \(5001 characters\), .* and 995 more$/);
  assert.ok(refused.error.length < 500);
  assert.equal(backend.runs.length, 0);
});

test("a keep-running header other than 1 or 0, and query parameters no route takes, are refused rather than ignored", async (t) => {
  const backend = fakeBackend(async () => ({ ok: true, result: "fine", usage, transcript: [] }));
  const { url, client } = await startRunner(t, backend);
  const errorOf = async (res: Response) => [res.status, ((await res.json()) as { error: string }).error];
  for (const value of ["true", "yes", "1, 1"]) {
    const res = await fetch(`${url}/query`, { method: "POST", headers: { ...json, "x-harness-keep-running": value }, body: '{"prompt":"p"}' });
    assert.deepEqual(await errorOf(res), [400, `x-harness-keep-running: must be 1 (the run outlives its request) or 0, got "${value}"`]);
  }
  await collect(client.query({ prompt: "p", requestId: "r1" }, { signal: never() }));
  // A caller that means to resume from event 3 would otherwise get the run from its start.
  assert.deepEqual(await errorOf(await fetch(`${url}/runs/r1/events?since=3`)), [400, 'the runner takes no query parameters, got "since=3": say where to resume with the Last-Event-ID header']);
  assert.deepEqual(await errorOf(await fetch(`${url}/health?verbose=1`)), [400, 'the runner takes no query parameters, got "verbose=1"']);
  assert.equal((await fetch(`${url}/query?x=${"y".repeat(5000)}`, { method: "POST", headers: json, body: '{"prompt":"p"}' })).status, 400);
  const plain = await fetch(`${url}/query`, { method: "POST", headers: { ...json, "x-harness-keep-running": "0" }, body: '{"prompt":"p"}' });
  assert.equal(plain.status, 200);
  await plain.text();
  assert.equal(backend.runs.length, 2);
});
