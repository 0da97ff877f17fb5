// Telling requests a runner never took from those it answered, and sending them again once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { RunnerEvent } from "@harness/protocol";
import { createRunnerClient, type RunnerClient } from "@harness/runner/client";
import { nodeTransport } from "@harness/runner/node-transport";
import { takenOnce, unansweredRequests } from "./not-taken.ts";

test("a request a runner gave no answer to is told from one it answered in part, which is never to be sent again", async (t) => {
  // A runner that cuts the connection of /query once it has read it, and of /events after the head.
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/query") return req.socket.destroy();
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.flushHeaders();
      setTimeout(() => req.socket.destroy(), 50);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const watch = unansweredRequests(nodeTransport());
  const failure = async (client: RunnerClient, events: (client: RunnerClient) => AsyncIterable<RunnerEvent>) => {
    try {
      for await (const event of events(client)) void event;
    } catch (error) {
      return error;
    }
    assert.fail("the stream did not fail");
  };
  const client = createRunnerClient(url, { transport: watch.transport });
  const cut = await failure(client, (c) => c.query({ prompt: "hi" }, { signal: AbortSignal.timeout(5000) }));
  assert.equal(watch.notTaken(cut, false), true, `cut before any answer: ${String(cut)}`);
  const broken = await failure(client, (c) => c.events("r", { afterSeq: 0, signal: AbortSignal.timeout(5000) }));
  assert.equal(watch.notTaken(broken, false), false, `cut after the answer began: ${String(broken)}`);
  assert.equal(watch.notTaken(broken, true), false, "even once its process is gone");

  // Nobody listens any more.
  await new Promise((resolve) => server.close(resolve));
  const refused = await failure(client, (c) => c.query({ prompt: "hi" }, { signal: AbortSignal.timeout(5000) }));
  assert.equal(watch.notTaken(refused, false), true, String(refused));
  // The same failure through another transport is not one this watch saw.
  const other = await failure(createRunnerClient(url, { transport: nodeTransport() }), (c) => c.query({ prompt: "hi" }, { signal: AbortSignal.timeout(5000) }));
  assert.equal(watch.notTaken(other, true), false);
  // An aborted request was let go of, not refused.
  const controller = new AbortController();
  controller.abort(new Error("left"));
  const aborted = await failure(client, (c) => c.query({ prompt: "hi" }, { signal: controller.signal }));
  assert.equal(watch.notTaken(aborted, true), false);
});

test("a query is sent again once, only when no runner took it, and never after any of its events came", async () => {
  const refusal = new Error("nobody listens");
  const sent: string[] = [];
  const how = {
    notTaken: (_runner: string, error: unknown) => error === refusal,
    resend: async (runner: string) => `${runner}'`,
    twice: async (first: string, _refused: unknown, second: string) => new Error(`neither ${first} nor ${second}`),
  };
  const read = async (send: (to: string) => AsyncIterable<RunnerEvent>) => {
    const seen: string[] = [];
    try {
      for await (const event of takenOnce("a", send, how, (to) => seen.push(`moved to ${to}`))) seen.push(event.type);
    } catch (error) {
      seen.push(`failed: ${(error as Error).message}`);
    }
    return seen;
  };
  const started: RunnerEvent = { type: "run.started", seq: 1, requestId: "r" };
  const completed: RunnerEvent = { type: "run.completed", seq: 2 } as RunnerEvent;

  // Refused by the first runner, taken by the next.
  assert.deepEqual(
    await read(async function* (to) {
      sent.push(to);
      if (to === "a") throw refusal;
      yield started;
      yield completed;
    }),
    ["moved to a'", "run.started", "run.completed"],
  );
  // Refused twice: sent twice, no more.
  sent.length = 0;
  assert.deepEqual(
    await read(async function* (to) {
      sent.push(to);
      throw refusal;
    }),
    ["moved to a'", "failed: neither a nor a'"],
  );
  assert.deepEqual(sent, ["a", "a'"]);
  // Its first event came: whatever breaks after, it is not sent again.
  sent.length = 0;
  assert.deepEqual(
    await read(async function* (to) {
      sent.push(to);
      yield started;
      throw refusal;
    }),
    ["run.started", "failed: nobody listens"],
  );
  assert.deepEqual(sent, ["a"]);
});
