import { test } from "node:test";
import assert from "node:assert/strict";
import { noticesAdded } from "./notices.ts";

const n = (message: string) => ({ level: "warning" as const, message });

test("the notices added after those seen, also once the oldest were dropped", () => {
  assert.deepEqual(noticesAdded([], [n("a")]), [n("a")]);
  assert.deepEqual(noticesAdded([n("a")], [n("a"), n("b")]), [n("b")]);
  assert.deepEqual(noticesAdded([n("a"), n("b")], [n("b"), n("c")]), [n("c")]);
  assert.deepEqual(noticesAdded([n("a"), n("b")], [n("a"), n("b")]), []);
  assert.deepEqual(noticesAdded([n("a")], [n("x")]), [n("x")]);
});
