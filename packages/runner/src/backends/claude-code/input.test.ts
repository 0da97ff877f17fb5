import { test } from "node:test";
import assert from "node:assert/strict";
import { createInputQueue } from "./input.ts";

test("pushed messages come out in order as user messages; after end the iterable finishes once drained", async () => {
  const input = createInputQueue();
  input.push("one");
  const taken: unknown[] = [];
  const reading = (async () => {
    for await (const m of input.messages) taken.push(m.message.content);
  })();
  await new Promise((r) => setImmediate(r));
  input.push("two");
  input.push("three");
  input.end();
  input.push("ignored after end");
  await reading;
  assert.deepEqual(taken, ["one", "two", "three"]);
  assert.equal(input.ended(), true);
});

test("the iterable waits while nothing is queued and the input is open", async () => {
  const input = createInputQueue();
  const iterator = input.messages[Symbol.asyncIterator]();
  let settled = false;
  const next = iterator.next().then((r) => {
    settled = true;
    return r;
  });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(settled, false);
  input.push("late");
  const { value } = await next;
  assert.deepEqual(value, { type: "user", message: { role: "user", content: "late" }, parent_tool_use_id: null });
  input.end();
  assert.equal((await iterator.next()).done, true);
});
