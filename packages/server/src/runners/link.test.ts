// The HTTP side of the RunnerProtocol against a scripted runner that speaks the control contract:
// keep-running queries, cancel by POST, re-attach with Last-Event-ID, control and rewind answers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunEndEvent, RunnerEvent, RunnerEventPayload } from "@harness/protocol";
import { createRunnerClient, RunnerHttpError } from "@harness/runner/client";
import { nodeTransport } from "@harness/runner/node-transport";
import { attachRun, postControl, postRewind, queryRun } from "./link.ts";
import { waitFor } from "../test-helpers.ts";

type Seen = { method: string; path: string; headers: IncomingMessage["headers"]; body: string };

/** A runner whose one run sends `events` (SSE, ids = seqs) and then waits for `finish()`. */
async function scriptedRunner(events: RunnerEventPayload[], options: { startedAfter?: Promise<void>; answerAfter?: Promise<void> } = {}) {
  const seen: Seen[] = [];
  const streams = new Set<ServerResponse>();
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const all = events.map((e, i) => ({ ...e, seq: i + 1 }) as RunnerEvent);
  const frame = (e: RunnerEvent) => `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;

  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (s: string) => (body += s));
    req.on("end", async () => {
      const path = req.url ?? "/";
      seen.push({ method: req.method ?? "", path, headers: req.headers, body });
      const sse = () => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.flushHeaders();
        streams.add(res);
        res.on("close", () => streams.delete(res));
      };
      if (path === "/query") {
        await options.answerAfter;
        sse();
        await options.startedAfter;
        for (const e of all) res.write(frame(e));
        await finished;
        res.end(frame({ type: "run.completed", seq: all.length + 1 } as RunnerEvent));
      } else if (path === "/runs/req-1/events") {
        const after = Number(req.headers["last-event-id"] ?? 0);
        sse();
        for (const e of all) if (e.seq > after) res.write(frame(e));
        await finished;
        res.end(frame({ type: "run.completed", seq: all.length + 1 } as RunnerEvent));
      } else if (path.startsWith("/runs/req-1/")) {
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      } else if (path === "/rewind") {
        const { dryRun } = JSON.parse(body) as { dryRun?: boolean };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ dryRun: dryRun === true, files: [{ path: "a.txt", action: "restore" }] }));
      } else {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: `not found: ${path}` }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    client: createRunnerClient(url, { transport: nodeTransport() }),
    seen,
    finish,
    close: () => {
      finish();
      for (const s of streams) s.destroy();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      return closed;
    },
  };
}

const started = { type: "run.started", requestId: "req-1" } as const;

test("a query asks the run to keep running, streams its events and ends with the run", async () => {
  const runner = await scriptedRunner([started, { type: "assistant.delta", text: "hi" }]);
  try {
    runner.finish();
    const events: RunnerEvent[] = [];
    for await (const e of queryRun(runner.client, { prompt: "x" }, { signal: new AbortController().signal })) events.push(e);
    assert.deepEqual(events.map((e) => e.type), ["run.started", "assistant.delta", "run.completed"]);
    assert.equal(runner.seen[0].headers["x-harness-keep-running"], "1");
    assert.equal(runner.seen.filter((s) => s.path.endsWith("/cancel")).length, 0, "a run that ended is not cancelled");
  } finally {
    await runner.close();
  }
});

/** Reads a query until its first text delta and aborts it there; the read rejects with the reason. */
async function abortAtFirstDelta(runner: Awaited<ReturnType<typeof scriptedRunner>>, onLateEnd?: (event: RunEndEvent) => void): Promise<void> {
  const controller = new AbortController();
  await assert.rejects(async () => {
    for await (const e of queryRun(runner.client, { prompt: "x" }, { signal: controller.signal, ...(onLateEnd && { onLateEnd }) })) {
      if (e.type === "assistant.delta") controller.abort(new Error("cancelled by the user"));
    }
  }, /cancelled by the user/);
}

test("aborting a query cancels its run with POST /runs/:id/cancel", async () => {
  const runner = await scriptedRunner([started, { type: "assistant.delta", text: "hi" }]);
  try {
    await abortAtFirstDelta(runner);
    await waitFor(() => runner.seen.some((s) => s.method === "POST" && s.path === "/runs/req-1/cancel"), "the cancel request");
  } finally {
    await runner.close();
  }
});

test("a query aborted with onLateEnd cancels its run, then reads on for the run's last event and hands it over", async () => {
  const runner = await scriptedRunner([started, { type: "assistant.delta", text: "hi" }]);
  try {
    const late: RunnerEvent[] = [];
    await abortAtFirstDelta(runner, (event) => late.push(event));
    await waitFor(() => runner.seen.some((s) => s.path === "/runs/req-1/cancel"), "the cancel request");
    runner.finish();
    await waitFor(() => late.length === 1, "the run's last event");
    assert.deepEqual(late, [{ type: "run.completed", seq: 3 }]);
    const reread = runner.seen.find((s) => s.path === "/runs/req-1/events");
    assert.equal(reread?.headers["last-event-id"], "2", "only what came after the last event read");
  } finally {
    await runner.close();
  }
});

for (const how of ["query", "attach"] as const) {
  test(`${how === "query" ? "a query" : "an attach"} aborted while it waits for the run's next event ends at once and cancels the run`, async () => {
    const runner = await scriptedRunner([started, { type: "assistant.delta", text: "hi" }]);
    try {
      const controller = new AbortController();
      const events: RunnerEvent[] = [];
      const stream =
        how === "query"
          ? queryRun(runner.client, { prompt: "x" }, { signal: controller.signal })
          : attachRun(runner.client, "req-1", 0, { signal: controller.signal });
      const reading = (async () => {
        for await (const e of stream) events.push(e);
      })();
      await waitFor(() => events.some((e) => e.type === "assistant.delta"), "the delta");
      controller.abort(new Error("stop"));
      await assert.rejects(reading, /stop/);
      await waitFor(() => runner.seen.some((s) => s.method === "POST" && s.path === "/runs/req-1/cancel"), "the cancel request");
    } finally {
      await runner.close();
    }
  });
}

for (const when of ["answered", "named its run"] as const) {
  test(`a query aborted before the runner ${when} is cancelled once the runner names its run`, async () => {
    let start!: () => void;
    const gate = new Promise<void>((r) => (start = r));
    const runner = await scriptedRunner([started], when === "answered" ? { answerAfter: gate } : { startedAfter: gate });
    try {
      const controller = new AbortController();
      const reading = (async () => {
        for await (const _ of queryRun(runner.client, { prompt: "x" }, { signal: controller.signal })) {
          // Nothing arrives before the abort.
        }
      })();
      await waitFor(() => runner.seen.length === 1, "the query to arrive");
      controller.abort(new Error("stop"));
      await assert.rejects(reading, /stop/);
      assert.equal(runner.seen.length, 1);
      start();
      await waitFor(() => runner.seen.some((s) => s.path === "/runs/req-1/cancel"), "the cancel request");
    } finally {
      await runner.close();
    }
  });
}

test("attach asks for the events after Last-Event-ID; an unknown run is a 404 refusal", async () => {
  const runner = await scriptedRunner([started, { type: "assistant.delta", text: "a" }, { type: "assistant.delta", text: "b" }]);
  try {
    runner.finish();
    const events: RunnerEvent[] = [];
    for await (const e of attachRun(runner.client, "req-1", 2, { signal: new AbortController().signal })) events.push(e);
    assert.deepEqual(events.map((e) => e.seq), [3, 4]);
    assert.equal(runner.seen[0].headers["last-event-id"], "2");
    await assert.rejects(async () => {
      for await (const _ of attachRun(runner.client, "other", 0, { signal: new AbortController().signal })) {
        // Refused before any event.
      }
    }, (error: unknown) => error instanceof RunnerHttpError && error.status === 404);
  } finally {
    await runner.close();
  }
});

test("control requests carry their bodies; refusals and an unreachable runner are values", async () => {
  const runner = await scriptedRunner([]);
  try {
    assert.deepEqual(await postControl(runner.client, "req-1", { type: "deny", toolUseId: "t1", reason: "no" }), { ok: true, value: undefined });
    assert.deepEqual(await postControl(runner.client, "req-1", { type: "configure", config: { model: "m" } }), { ok: true, value: undefined });
    assert.deepEqual(runner.seen.map((s) => [s.path, JSON.parse(s.body)]), [
      ["/runs/req-1/deny", { toolUseId: "t1", reason: "no" }],
      ["/runs/req-1/configure", { model: "m" }],
    ]);
    const refused = await postControl(runner.client, "gone", { type: "steer", message: "x" });
    assert.deepEqual(refused, { ok: false, status: 404, message: "not found: /runs/gone/steer" });
    assert.deepEqual(await postRewind(runner.client, { userMessageId: "m", dryRun: true }), { ok: true, value: { dryRun: true, files: [{ path: "a.txt", action: "restore" }] } });
  } finally {
    await runner.close();
  }
  const unreachable = await postControl(runner.client, "req-1", { type: "cancel" });
  assert.equal(unreachable.ok, false);
  assert.match((unreachable as { message: string }).message, /cannot reach the runner/);
});
