import { test, type TestContext as NodeTestContext } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loopbackApi } from "./client.ts";
import { executionTests, PROMPT } from "./suite-execution.ts";
import type { ConformanceTest } from "./types.ts";

const BASE = "/v1/harnesses/harness";
const USAGE = { input_tokens: 12, output_tokens: 1, total_tokens: 13 };
const sse = (events: object[]) => events.map((event, i) => `id: ${i + 1}\ndata: ${JSON.stringify(event)}\n\n`).join("");
/** Short bounds: a step that does not answer fails at once, naming itself. */
const tests = executionTests({ runMs: 300, requestMs: 300, startMs: 300, pollMs: 10 });
const named = (id: string) => tests.find((t) => t.id === id)!;

type Route = (req: IncomingMessage, res: ServerResponse, body: string) => boolean | void;

/** Runs `conformanceTest` against a server answering by `route`, then the usual answers of a
 * deployment that executes well; the test's error message, or "passed". */
async function outcome(t: NodeTestContext, conformanceTest: ConformanceTest, route: Route = () => false): Promise<string> {
  // The prompt's execution is over once streamed; the long one runs until cancelled.
  let status = "completed";
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (route(req, res, body)) return;
    const json = (code: number, value: unknown) => res.writeHead(code, { "content-type": "application/json" }).end(JSON.stringify(value));
    const execution = { id: "e1", harness_id: "harness", status: "completed", session_id: "s1" };
    const url = req.url!.slice(BASE.length);
    if (req.method === "POST" && url === "/execute/stream") {
      assert.deepEqual(JSON.parse(body), { message: PROMPT, session_id: "s1" });
      return res.writeHead(200, { "content-type": "text/event-stream", "x-execution-id": "e1" }).end(sse([{ type: "text", content: "o" }, { type: "text", content: "k" }, { type: "done", usage: USAGE }]));
    }
    if (req.method === "POST" && url === "/execute") {
      status = "running";
      return json(202, { execution_id: "e1", status: "pending", stream_url: "…" });
    }
    if (req.method === "GET" && url === "/executions/e1") return json(200, { execution: { ...execution, status } });
    if (req.method === "POST" && url === "/executions/e1/cancel") {
      status = "cancelled";
      return json(200, { cancelled: true });
    }
    if (req.method === "GET" && url === "/executions/e1/stream") return res.writeHead(200, { "content-type": "text/event-stream" }).end(sse([{ type: "text", content: "1\n" }, { type: "done", usage: USAGE }]));
    if (req.method === "GET" && url.startsWith("/executions?status=completed")) return json(200, { data: [execution], has_more: false });
    if (req.method === "GET" && url === "/executions/e1/result") return json(200, { result: { execution_id: "e1", status: "completed", output: "ok", usage: USAGE } });
    json(404, { error: { code: "not_found", message: `no route ${req.method} ${url}` } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const api = loopbackApi({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, userId: "ann" });
  try {
    await conformanceTest.run({ api, sessionId: "s1", q: "?session_id=s1", workspace: "/nowhere", routes: [] });
    return "passed";
  } catch (error) {
    return (error as Error).message;
  }
}

test("a prompt that streams text then done with usage, is listed completed and has its result passes", async (t) => {
  assert.equal(await outcome(t, named("execution.prompt")), "passed");
  assert.ok(tests.every((test) => test.category === "execution" && test.slow), "execution tests start the runner: a quick run skips them");
});

test("a stream out of order, without usage, or with an error fails naming what was wrong", async (t) => {
  const streaming = (events: object[]): Route => (req, res) => {
    if (!req.url!.endsWith("/execute/stream")) return false;
    res.writeHead(200, { "content-type": "text/event-stream", "x-execution-id": "e1" }).end(sse(events));
    return true;
  };
  const prompt = named("execution.prompt");
  assert.match(await outcome(t, prompt, streaming([{ type: "done", usage: USAGE }, { type: "text", content: "ok" }])), /the prompt's stream does not end with one done event \(done, text\)/);
  assert.match(await outcome(t, prompt, streaming([{ type: "done", usage: USAGE }])), /the prompt's stream sent no text event before done \(done\)/);
  assert.match(await outcome(t, prompt, streaming([{ type: "text", content: "ok" }, { type: "done" }])), /the prompt's stream's done event has no usage numbers/);
  assert.match(await outcome(t, prompt, streaming([{ type: "error", code: "run_failed", message: "no credit", recoverable: false }, { type: "done", usage: USAGE }])), /the prompt's stream sent an error: .*no credit/);
  const unlisted: Route = (req, res) => {
    if (!req.url!.includes("/executions?")) return false;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: [], has_more: false }));
    return true;
  };
  assert.match(await outcome(t, prompt, unlisted), /GET \/executions\?status=completed does not list the execution e1/);
});

test("a step that does not answer in time fails naming the step", async (t) => {
  const stalled = (path: string): Route => (req, res) => {
    if (!req.url!.endsWith(path)) return false;
    // Its head goes out, its end never does.
    res.writeHead(200, { "content-type": "text/event-stream", "x-execution-id": "e1" }).write(sse([{ type: "text", content: "o" }]));
    return true;
  };
  assert.match(await outcome(t, named("execution.prompt"), stalled("/execute/stream")), /^streaming the prompt \(POST \/execute\/stream\): POST \/v1\/harnesses\/harness\/execute\/stream: answered 200, but its answer did not end within 0.3 s$/);
  assert.match(await outcome(t, named("execution.cancel"), stalled("/executions/e1/stream")), /^reading its stream to its end \(GET \/executions\/:id\/stream\): .*did not end within 0.3 s$/);
  const pending: Route = (req, res) => {
    if (req.method !== "GET" || !req.url!.endsWith("/executions/e1")) return false;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ execution: { id: "e1", status: "pending" } }));
    return true;
  };
  assert.match(await outcome(t, named("execution.cancel"), pending), /waiting for the execution to run: it was still pending after 0.3 s/);
});

test("a prompt cancelled while it runs passes when it ends cancelled; one that ends otherwise fails saying so", async (t) => {
  const cancel = named("execution.cancel");
  assert.equal(await outcome(t, cancel), "passed");
  const ignored: Route = (req, res) => {
    if (!req.url!.endsWith("/cancel")) return false;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ cancelled: true }));
    return true;
  };
  assert.match(await outcome(t, cancel, ignored), /GET \/executions\/e1 says its status is "running", not cancelled, once cancelled/);
  const finished: Route = (req, res) => {
    if (!req.url!.endsWith("/cancel")) return false;
    res.writeHead(409, { "content-type": "application/json" }).end(JSON.stringify({ error: { code: "execution_finished", message: 'execution "e1" has already ended (completed)' } }));
    return true;
  };
  assert.match(await outcome(t, cancel, finished), /^cancelling it \(POST \/executions\/:id\/cancel\): POST \/v1\/harnesses\/harness\/executions\/e1\/cancel answered 409, not 200: execution "e1" has already ended/);
});
