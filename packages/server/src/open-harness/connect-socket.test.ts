import { test } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { WebSocket } from "ws";
import type { OpenHarness } from "./common.ts";
import { attachConnectSocket } from "./connect-socket.ts";
import type { Execution } from "./executions.ts";
import type { ExecutionEvent } from "./run-watch.ts";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A socket of the channel that keeps what it is sent. */
function fakeSocket() {
  const ws = Object.assign(new EventEmitter(), { OPEN: 1, readyState: 1, bufferedAmount: 0, sent: [] as Record<string, unknown>[] });
  Object.assign(ws, { send: (text: string) => ws.sent.push(JSON.parse(text)), close: () => {}, terminate: () => {} });
  return ws;
}

/** An execution that ends at once, having written `text`. */
function endedExecution(id: string, text: string): Execution {
  const events: ExecutionEvent[] = [{ type: "text", content: text }, { type: "done", usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } }];
  const watch = { status: "completed", finished: true, awaiting: () => [] } as unknown as Execution["watch"];
  return { id, userId: "alice", sessionId: "s1", startedAt: new Date().toISOString(), watch, events, listeners: new Set(), ended: Promise.resolve(), cancel: () => false, answer: () => {}, stopAgent: () => {}, planEdits: [], setTodos: async () => ({ ok: true, value: undefined }) } as Execution;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("a socket lets go of its messages' executions once they have ended and been sent, and still answers for them", async () => {
  const kept = new Map<string, Execution>();
  const collected: WeakRef<Execution>[] = [];
  let made = 0;
  const oh = {
    sessionExists: async () => true,
    events: { subscribe: () => () => {} },
    executions: {
      async start() {
        const execution = endedExecution(`e${++made}`, "x".repeat(100_000));
        collected.push(new WeakRef(execution));
        return execution;
      },
      get: (_user: string, id: string) => kept.get(id),
    },
  } as unknown as OpenHarness;
  const ws = fakeSocket();
  attachConnectSocket(oh, ws as unknown as WebSocket, "alice", "s1");
  for (let i = 1; i <= 50; i++) {
    ws.emit("message", Buffer.from(JSON.stringify({ type: "message", id: `m${i}`, content: "hi" })), false);
    await settle();
  }
  assert.equal(ws.sent.filter((message) => message.type === "done").length, 50);
  await settle();
  gc();
  assert.equal(collected.filter((ref) => ref.deref() !== undefined).length, 0, "no ended execution is held by the socket");

  // Still answered for: stdin to an ended message, and a cancel by its id.
  ws.emit("message", Buffer.from(JSON.stringify({ type: "stdin", id: "m1", data: "yes" })), false);
  assert.match(String(ws.sent.at(-1)!.message), /run of message "m1" has already ended \(completed\)/);
  kept.set("e2", endedExecution("e2", ""));
  ws.emit("message", Buffer.from(JSON.stringify({ type: "cancel", execution_id: "m2" })), false);
  assert.match(String(ws.sent.at(-1)!.message), /execution "e2" has already ended/);
});
