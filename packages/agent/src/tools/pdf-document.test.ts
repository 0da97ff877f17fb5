import assert from "node:assert/strict";
import { test } from "node:test";
import { matchesIn } from "./pdf-document.ts";

test("the scan for objects of a broken file finds each match once, also across the windows it reads", () => {
  const text = "1 0 obj x 22 0 obj y 333 0 obj z 4444 0 obj";
  const expected = [...text.matchAll(/(?<![0-9])(\d+)\s+(\d+)\s+obj\b/g)].map((m) => [m.index, m[1]]);
  for (const window of [3, 5, 7, 11, 1000]) {
    const found = [...matchesIn(Buffer.from(text, "latin1"), /(?<![0-9])(\d+)\s+(\d+)\s+obj\b/g, window)].map((m) => [m.index, m[1]]);
    assert.deepEqual(found, expected, `window ${window}`);
  }
});
