// POST /runs/:id/todos: a new todo list for the run in flight reaches the backend that keeps the
// run's list; a backend that keeps its own is 501, an ended run 409, a bad list 400 naming the field.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { RunnerEvent, TodoItem } from "@harness/protocol";
import type { BackendContext } from "../backend.ts";
import { fakeBackend, never, post, startRunner, usage, waitForAbort } from "../test-support.ts";

async function startedId(iter: AsyncIterator<RunnerEvent>): Promise<string> {
  const first = (await iter.next()).value as RunnerEvent;
  assert.equal(first.type, "run.started");
  return (first as { requestId: string }).requestId;
}

async function untilEnd(iter: AsyncIterator<RunnerEvent>): Promise<void> {
  for (;;) {
    const next = await iter.next();
    if (next.done || next.value.type === "run.completed" || next.value.type === "run.error") return;
  }
}

const todos: TodoItem[] = [{ content: "Ship it", status: "in_progress", activeForm: "Shipping it" }];

test("todos reach the backend's listener; a bad list is 400 naming the field; an ended run 409", async (t) => {
  let taken: TodoItem[] | undefined;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const backend = fakeBackend(async (_q, ctx: BackendContext) => {
    const unsubscribe = ctx.onTodosSet!((list) => {
      taken = list;
      done();
      return true;
    });
    await finished;
    unsubscribe();
    return { ok: true, result: "ok", usage, transcript: [] };
  });
  const { url, client } = await startRunner(t, { backend });
  const iter = client.query({ prompt: "p" }, { signal: never() })[Symbol.asyncIterator]();
  const id = await startedId(iter);
  const bad = await post(`${url}/runs/${id}/todos`, { todos: [{ content: "x", status: "done", activeForm: "x" }] });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error ?? "", /todos\.0\.status|todos\[0\]\.status/);
  await client.control(id, { type: "todos", todos });
  assert.deepEqual(taken, todos);
  await untilEnd(iter);
  assert.equal((await post(`${url}/runs/${id}/todos`, { todos })).status, 409);
});

test("a run whose backend keeps its own list takes none: 501", async (t) => {
  const backend = fakeBackend(async (_q, ctx) => waitForAbort(ctx));
  const { url, client } = await startRunner(t, { backend });
  const controller = new AbortController();
  const iter = client.query({ prompt: "p" }, { signal: controller.signal })[Symbol.asyncIterator]();
  const id = await startedId(iter);
  const refused = await post(`${url}/runs/${id}/todos`, { todos });
  assert.equal(refused.status, 501);
  assert.match(refused.body.error ?? "", /keeps its own/);
  controller.abort();
  await untilEnd(iter).catch(() => {});
});
