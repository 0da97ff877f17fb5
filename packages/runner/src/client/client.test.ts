// The runner client against a real runner server (and stand-ins for misbehaving ones), once per
// transport: fetch (any host) and node:http (the server's).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Agent, createServer } from "node:http";
import { createRunnerClient, RunnerHttpError } from "./client.ts";
import { nodeTransport } from "./node-transport.ts";
import { collect, fakeBackend, listen, never, startRunner as start, usage, waitFor, waitForAbort, type TestContext } from "../test-support.ts";
import { fetchTransport, type RunnerTransport } from "./transport.ts";
import type { Backend } from "../backend.ts";
import { runnerVersion } from "../version.ts";

const TRANSPORTS: Array<[string, RunnerTransport]> = [
  ["fetch", fetchTransport],
  ["node:http", nodeTransport()],
];

for (const [name, transport] of TRANSPORTS) {
  const startRunner = (t: TestContext, backend: Backend) => start(t, { backend, transport });

  test(`${name}: a run streams run.started, the backend's events and run.completed with ids 1..n`, async (t) => {
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
    // The runner keeps the transcript the run left, under an id of its own.
    const transcriptId = (events[5] as { transcriptId?: string }).transcriptId;
    assert.match(transcriptId ?? "", /^[0-9a-f-]{36}$/);
    assert.deepEqual(events.slice(1), [
      { type: "assistant.delta", seq: 2, text: "Hel" },
      { type: "tool.started", seq: 3, toolName: "Bash", toolUseId: "t1", input: { command: "echo hi" } },
      { type: "tool.completed", seq: 4, toolUseId: "t1", output: "hi\n", isError: false },
      { type: "assistant.delta", seq: 5, text: 'lo "quoted"\n' },
      { type: "run.completed", seq: 6, result: 'Hello "quoted"', usage, transcript, transcriptId },
    ]);
    assert.equal(backend.runs[0].query.model, "m1");
    assert.equal(backend.runs[0].ctx.workspace, "/tmp/unused-workspace");
  });

  test(`${name}: a second query while a run is in flight gets 409; health reports busy`, async (t) => {
    const backend = fakeBackend((_q, ctx) => waitForAbort(ctx));
    const { client } = await startRunner(t, backend);
    assert.deepEqual(await client.health(), { ok: true, busy: false, hasAnthropicKey: Boolean(process.env.ANTHROPIC_API_KEY), version: runnerVersion() });

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

  test(`${name}: aborting the client's signal closes the request and aborts the backend's run`, async (t) => {
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

  test(`${name}: leaving the event loop early also cancels the run`, async (t) => {
    const backend = fakeBackend((_q, ctx) => waitForAbort(ctx));
    const { client } = await startRunner(t, backend);
    for await (const e of client.query({ prompt: "p" }, { signal: never() })) {
      assert.equal(e.type, "run.started");
      break;
    }
    await waitFor(() => backend.runs[0]?.ctx.signal.aborted === true, "the backend to see the abort");
  });

  test(`${name}: the client reports a stream that ends before the run finished`, async (t) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('id: 1\nevent: run.started\ndata: {"type":"run.started","seq":1,"requestId":"r"}\n\n');
    });
    const url = await listen(server);
    t.after(() => server.close());
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const e of createRunnerClient(url, { transport }).query({ prompt: "p" }, { signal: never() })) seen.push(e.type);
    }, /runner stream ended before the run finished/);
    assert.deepEqual(seen, ["run.started"]);
  });

  test(`${name}: the client names an unreachable runner`, async () => {
    const server = createServer();
    const url = await listen(server);
    await new Promise((r) => server.close(r));
    await assert.rejects(createRunnerClient(url, { transport }).health(), new RegExp(`cannot reach the runner at ${url}`));
  });

  test(`${name}: the client skips event types it does not know and rejects malformed events`, async (t) => {
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
    const client = createRunnerClient(url, { transport });
    const events = await collect(client.query({ prompt: "p" }, { signal: never() }));
    assert.deepEqual(
      events.map((e) => e.type),
      ["run.started", "run.completed"],
    );
    await assert.rejects(collect(client.query({ prompt: "p" }, { signal: never() })), /runner sent an invalid tool\.started event: toolUseId: /);
  });

  test(`${name}: text split inside a character across packets, and thousands of events in one write, arrive whole and in order`, async (t) => {
    const frame = (seq: number, data: object) => `id: ${seq}\nevent: x\ndata: ${JSON.stringify({ seq, ...data })}\n\n`;
    const many = Array.from({ length: 3000 }, (_, i) => frame(i + 3, { type: "assistant.delta", text: `d${i}` })).join("");
    const split = Buffer.from(frame(2, { type: "assistant.delta", text: "héllo → ✓" }));
    const cut = split.indexOf(Buffer.from("→")) + 1;
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(frame(1, { type: "run.started", requestId: "r" }));
      res.write(split.subarray(0, cut));
      setTimeout(() => {
        res.write(split.subarray(cut));
        res.end(many + frame(3003, { type: "run.completed", result: "", usage, transcript: [] }));
      }, 30);
    });
    const url = await listen(server);
    t.after(() => server.close());
    const events = await collect(createRunnerClient(url, { transport }).query({ prompt: "p" }, { signal: never() }));
    assert.equal(events.length, 3003);
    assert.deepEqual(events[1], { type: "assistant.delta", seq: 2, text: "héllo → ✓" });
    assert.deepEqual(
      events.map((e) => e.seq),
      Array.from({ length: 3003 }, (_, i) => i + 1),
    );
    assert.equal((events[3002] as { text?: string }).text, undefined);
    assert.equal((events[3001] as { text: string }).text, "d2999");
  });

  test(`${name}: a connection cut in the middle of a run is reported as a broken stream`, async (t) => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('id: 1\nevent: run.started\ndata: {"type":"run.started","seq":1,"requestId":"r"}\n\n');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const url = await listen(server);
    t.after(() => server.close());
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const e of createRunnerClient(url, { transport }).query({ prompt: "p" }, { signal: never() })) seen.push(e.type);
    }, /runner stream broke/);
    assert.deepEqual(seen, ["run.started"]);
  });
}

test("node:http: health checks and runs one after the other share one connection; a run left early does not", async (t) => {
  const backend = fakeBackend(async (_q, ctx) => {
    ctx.emit({ type: "assistant.delta", text: "hi" });
    if (_q.prompt === "hold") await waitForAbort(ctx);
    return { ok: true, result: "hi", usage, transcript: [] };
  });
  const { server, client } = await start(t, { backend, transport: nodeTransport() });
  let connections = 0;
  server.on("connection", () => connections++);
  for (let i = 0; i < 3; i++) {
    assert.equal((await client.health()).ok, true);
    assert.equal((await collect(client.query({ prompt: "p" }, { signal: never() }))).at(-1)?.type, "run.completed");
  }
  assert.equal(connections, 1, "one connection served three health checks and three runs");

  for await (const event of client.query({ prompt: "hold" }, { signal: never() })) if (event.type === "assistant.delta") break;
  await waitFor(() => backend.runs.at(-1)!.ctx.signal.aborted, "the run left early to be cancelled");
  await waitFor(async () => !(await client.health()).busy, "the runner to be free");
  assert.equal(connections, 2, "the cancelled run's connection was closed, a new one serves the next request");
});

test("node:http: a signal aborted as soon as a run's last event arrives leaves its connection to the next run", async (t) => {
  // A session aborts its run's signal the moment it reads run.completed; the end of the answer's
  // body may come a moment later (here 30 ms), and the connection must still go back to the pool.
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write('id: 1\nevent: run.started\ndata: {"type":"run.started","seq":1,"requestId":"r"}\n\n');
    res.write('id: 2\nevent: run.completed\ndata: {"type":"run.completed","seq":2}\n\n');
    setTimeout(() => res.end(), 30);
  });
  let connections = 0;
  server.on("connection", () => connections++);
  const url = await listen(server);
  t.after(() => server.close());
  const agent = new Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  const client = createRunnerClient(url, { transport: nodeTransport(agent) });
  const pooled = () => Object.values(agent.freeSockets).flat().length;
  for (let i = 0; i < 3; i++) {
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const event of client.query({ prompt: "p" }, { signal: controller.signal })) {
      seen.push(event.type);
      if (event.type === "run.completed") controller.abort(new Error("the run is over"));
    }
    assert.deepEqual(seen, ["run.started", "run.completed"]);
    await waitFor(() => pooled() === 1, "the connection to go back to the pool once the answer ends");
  }
  assert.equal(connections, 1, "one connection served the three runs");
});
