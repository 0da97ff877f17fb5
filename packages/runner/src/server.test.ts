import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { createRunnerClient, RunnerHttpError } from "./client.ts";
import { collect, fakeBackend, listen, never, startRunner as start, usage, waitFor, waitForAbort, type TestContext } from "./test-support.ts";
import type { Backend } from "./backend.ts";

const startRunner = (t: TestContext, backend: Backend) => start(t, { backend });

test("a run streams run.started, the backend's events and run.completed with ids 1..n", async (t) => {
  const transcript = [
    { role: "user" as const, content: "hi" },
    { role: "assistant" as const, content: [{ type: "text", text: "Hello" }] },
  ];
  const backend = fakeBackend(async (_q, ctx) => {
    ctx.emit({ type: "assistant.delta", text: "Hel" });
    ctx.emit({ type: "tool.started", toolName: "Bash", toolUseId: "t1", input: { command: "echo hi" } });
    ctx.emit({ type: "tool.completed", toolUseId: "t1", output: "hi\n", isError: false });
    await new Promise((r) => setTimeout(r, 5));
    ctx.emit({ type: "assistant.delta", text: 'lo "quoted"\n' });
    return { ok: true, result: 'Hello "quoted"', usage, transcript };
  });
  const { client } = await startRunner(t, backend);
  const events = await collect(client.query({ prompt: "hi", model: "m1" }, { signal: never() }));

  assert.deepEqual(
    events.map((e) => e.seq),
    [1, 2, 3, 4, 5, 6],
  );
  assert.equal(events[0].type, "run.started");
  assert.match((events[0] as { requestId: string }).requestId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(events.slice(1), [
    { type: "assistant.delta", seq: 2, text: "Hel" },
    { type: "tool.started", seq: 3, toolName: "Bash", toolUseId: "t1", input: { command: "echo hi" } },
    { type: "tool.completed", seq: 4, toolUseId: "t1", output: "hi\n", isError: false },
    { type: "assistant.delta", seq: 5, text: 'lo "quoted"\n' },
    { type: "run.completed", seq: 6, result: 'Hello "quoted"', usage, transcript },
  ]);
  assert.equal(backend.runs[0].query.model, "m1");
  assert.equal(backend.runs[0].ctx.workspace, "/tmp/unused-workspace");
});

test("the wire format is one SSE frame per event with id, event and JSON data", async (t) => {
  const { url } = await startRunner(
    t,
    fakeBackend(async (_q, ctx) => {
      ctx.emit({ type: "assistant.delta", text: "x" });
      return { ok: false, message: "boom" };
    }),
  );
  const res = await fetch(`${url}/query`, { method: "POST", body: JSON.stringify({ prompt: "p" }) });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
  const text = await res.text();
  const frames = text.split("\n\n").filter(Boolean);
  assert.equal(frames.length, 3);
  assert.match(frames[0], /^id: 1\nevent: run\.started\ndata: \{"type":"run\.started","seq":1,"requestId":"[^"]+"\}$/);
  assert.equal(frames[1], 'id: 2\nevent: assistant.delta\ndata: {"type":"assistant.delta","seq":2,"text":"x"}');
  assert.equal(frames[2], 'id: 3\nevent: run.error\ndata: {"type":"run.error","seq":3,"message":"boom"}');
});

test("a second query while a run is in flight gets 409; health reports busy", async (t) => {
  const backend = fakeBackend((_q, ctx) => waitForAbort(ctx));
  const { client } = await startRunner(t, backend);
  assert.deepEqual(await client.health(), { ok: true, busy: false, hasAnthropicKey: Boolean(process.env.ANTHROPIC_API_KEY) });

  const controller = new AbortController();
  const first = client.query({ prompt: "one" }, { signal: controller.signal })[Symbol.asyncIterator]();
  assert.equal((await first.next()).value?.type, "run.started");
  assert.equal((await client.health()).busy, true);

  await assert.rejects(collect(client.query({ prompt: "two" }, { signal: never() })), (err: unknown) => {
    assert.ok(err instanceof RunnerHttpError);
    assert.equal(err.status, 409);
    assert.equal(err.message, "runner is busy with another run");
    return true;
  });
  assert.equal(backend.runs.length, 1);

  controller.abort();
  await assert.rejects(first.next(), { name: "AbortError" });
  await waitFor(async () => !(await client.health()).busy, "the runner to become idle");
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

  const notObject = await post("[1,2]");
  assert.equal(notObject.status, 400);
  assert.match(notObject.body.error, /^body: /);

  assert.equal(backend.runs.length, 0);
  const events = await collect(client.query({ prompt: "after" }, { signal: never() }));
  assert.equal(events.at(-1)?.type, "run.completed");
});

test("a body over 8 MiB gets 413", async (t) => {
  const { url, client } = await startRunner(t, fakeBackend(async () => ({ ok: false, message: "unused" })));
  const res = await fetch(`${url}/query`, { method: "POST", body: JSON.stringify({ prompt: "x".repeat(9 * 1024 * 1024) }) });
  assert.equal(res.status, 413);
  assert.match(((await res.json()) as { error: string }).error, /larger than/);
  assert.equal((await client.health()).ok, true);
});

test("unknown routes get a 404 JSON error", async (t) => {
  const { url } = await startRunner(t, fakeBackend(async () => ({ ok: false, message: "unused" })));
  for (const [method, path] of [["GET", "/nope"], ["GET", "/query"], ["POST", "/health"]]) {
    const res = await fetch(url + path, { method });
    assert.equal(res.status, 404, `${method} ${path}`);
    assert.match(((await res.json()) as { error: string }).error, /not found/);
  }
});

test("aborting the client's signal closes the request and aborts the backend's run", async (t) => {
  const backend = fakeBackend(async (_q, ctx) => {
    ctx.emit({ type: "assistant.delta", text: "working" });
    return waitForAbort(ctx);
  });
  const { client } = await startRunner(t, backend);
  const controller = new AbortController();
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const e of client.query({ prompt: "long" }, { signal: controller.signal })) {
      seen.push(e.type);
      if (e.type === "assistant.delta") controller.abort();
    }
  }, { name: "AbortError" });
  assert.deepEqual(seen, ["run.started", "assistant.delta"]);
  await waitFor(() => backend.runs[0].ctx.signal.aborted, "the backend to see the abort");
  await waitFor(async () => !(await client.health()).busy, "the runner to become idle");
});

test("leaving the event loop early also cancels the run", async (t) => {
  const backend = fakeBackend((_q, ctx) => waitForAbort(ctx));
  const { client } = await startRunner(t, backend);
  for await (const e of client.query({ prompt: "p" }, { signal: never() })) {
    assert.equal(e.type, "run.started");
    break;
  }
  await waitFor(() => backend.runs[0]?.ctx.signal.aborted === true, "the backend to see the abort");
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

test("the client reports a stream that ends before the run finished", async (t) => {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end('id: 1\nevent: run.started\ndata: {"type":"run.started","seq":1,"requestId":"r"}\n\n');
  });
  const url = await listen(server);
  t.after(() => server.close());
  const seen: string[] = [];
  await assert.rejects(async () => {
    for await (const e of createRunnerClient(url).query({ prompt: "p" }, { signal: never() })) seen.push(e.type);
  }, /runner stream ended before the run finished/);
  assert.deepEqual(seen, ["run.started"]);
});

test("the client names an unreachable runner", async () => {
  const server = createServer();
  const url = await listen(server);
  await new Promise((r) => server.close(r));
  await assert.rejects(createRunnerClient(url).health(), new RegExp(`cannot reach the runner at ${url}`));
});

test("the client skips event types it does not know and rejects malformed events", async (t) => {
  const bodies = [
    'id: 1\nevent: run.started\ndata: {"type":"run.started","seq":1,"requestId":"r"}\n\n' +
      'id: 2\nevent: run.future\ndata: {"type":"run.future","seq":2}\n\n' +
      'id: 3\r\nevent: run.completed\r\ndata: {"type":"run.completed","seq":3}\r\n\r\n',
    'id: 1\nevent: run.started\ndata: {"type":"run.started","seq":1,"requestId":"r"}\n\n' +
      'id: 2\nevent: tool.started\ndata: {"type":"tool.started","seq":2,"toolName":"Bash"}\n\n',
  ];
  let next = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(bodies[next++]);
  });
  const url = await listen(server);
  t.after(() => server.close());
  const client = createRunnerClient(url);
  const events = await collect(client.query({ prompt: "p" }, { signal: never() }));
  assert.deepEqual(
    events.map((e) => e.type),
    ["run.started", "run.completed"],
  );
  await assert.rejects(collect(client.query({ prompt: "p" }, { signal: never() })), /runner sent an invalid tool\.started event: toolUseId: /);
});
