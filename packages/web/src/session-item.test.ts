import { test } from "node:test";
import assert from "node:assert/strict";
import { titleProblem } from "./session-item.ts";

test("a title typed in is refused, saying why, when the server would refuse it", () => {
  assert.equal(titleProblem("  My plan "), undefined);
  assert.equal(titleProblem("   "), "a title must not be empty");
  assert.equal(titleProblem("x".repeat(201)), "a title must be at most 200 characters");
  assert.equal(titleProblem("a\u0007b"), "a title must not contain control characters");
});
