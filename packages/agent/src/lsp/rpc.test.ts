import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { encodeMessage, MessageReader } from "./framing.ts";
import { METHOD_NOT_FOUND, RpcConnection, RpcError } from "./rpc.ts";

/** A connection whose other side is this test: `sent` collects what it writes, `reply` feeds it. */
function pair() {
  const toClient = new PassThrough();
  const fromClient = new PassThrough();
  const sent: Record<string, unknown>[] = [];
  const reader = new MessageReader();
  fromClient.on("data", (chunk: Buffer) => sent.push(...(reader.push(chunk) as Record<string, unknown>[])));
  const notes: [string, unknown][] = [];
  const rpc = new RpcConnection(toClient, fromClient, {
    onRequest(method) {
      if (method === "window/workDoneProgress/create") return null;
      throw new RpcError(METHOD_NOT_FOUND, `method not supported: ${method}`);
    },
    onNotification: (method, params) => notes.push([method, params]),
  });
  const reply = (message: Record<string, unknown>) => toClient.write(encodeMessage({ jsonrpc: "2.0", ...message }));
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  return { rpc, sent, notes, reply, tick };
}

test("requests get their answers by id, in any order; an error answer rejects with its code and message", async () => {
  const { rpc, sent, reply, tick } = pair();
  const first = rpc.request("textDocument/hover", { a: 1 }, { timeoutMs: 5_000 });
  const second = rpc.request("textDocument/definition", undefined, { timeoutMs: 5_000 });
  await tick();
  assert.deepEqual(sent, [
    { jsonrpc: "2.0", id: 1, method: "textDocument/hover", params: { a: 1 } },
    { jsonrpc: "2.0", id: 2, method: "textDocument/definition" },
  ]);
  reply({ id: 2, error: { code: -32800, message: "cancelled by server" } });
  reply({ id: 1, result: { contents: "x" } });
  await assert.rejects(second, (error: RpcError) => error.code === -32800 && error.message === "cancelled by server");
  assert.deepEqual(await first, { contents: "x" });
});

test("the server's requests are answered (unknown methods with MethodNotFound), its notifications handed over", async () => {
  const { sent, notes, reply, tick } = pair();
  reply({ id: "p1", method: "window/workDoneProgress/create", params: { token: "t" } });
  reply({ id: 7, method: "workspace/semanticTokens/refresh" });
  reply({ method: "window/logMessage", params: { message: "hi" } });
  await tick();
  await tick();
  assert.deepEqual(sent, [
    { jsonrpc: "2.0", id: "p1", result: null },
    { jsonrpc: "2.0", id: 7, error: { code: METHOD_NOT_FOUND, message: "method not supported: workspace/semanticTokens/refresh" } },
  ]);
  assert.deepEqual(notes, [["window/logMessage", { message: "hi" }]]);
});

test("a request with no answer in time is given up on and cancelled; closing rejects those waiting and later ones", async () => {
  const { rpc, sent, tick } = pair();
  await assert.rejects(rpc.request("workspace/symbol", { query: "" }, { timeoutMs: 10 }), /no answer to workspace\/symbol within 10 ms/);
  await tick();
  assert.deepEqual(sent.at(-1), { jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } });
  const waiting = rpc.request("textDocument/hover", {}, { timeoutMs: 5_000 });
  rpc.close(new Error("the server exited"));
  await assert.rejects(waiting, /the server exited/);
  await assert.rejects(rpc.request("textDocument/hover", {}, { timeoutMs: 5_000 }), /the server exited/);
});
