import { test } from "node:test";
import assert from "node:assert/strict";
import { deleteQuestion, forkTitle, titleProblem } from "./session-item.ts";

test("a title typed in is refused, saying why, when the server would refuse it", () => {
  assert.equal(titleProblem("  My plan "), undefined);
  assert.equal(titleProblem("   "), "a title must not be empty");
  assert.equal(titleProblem("x".repeat(201)), "a title must be at most 200 characters");
  assert.equal(titleProblem("a\u0007b"), "a title must not contain control characters");
  // The bidirectional overrides and isolates reorder what is shown after them: the server refuses them too.
  for (const bidi of ["\u202e", "\u202a", "\u2066", "\u2069"]) assert.equal(titleProblem(`a${bidi}b`), "a title must not contain control characters", JSON.stringify(bidi));
  assert.equal(titleProblem("a\ud800b"), "a title must not contain half a surrogate pair");
  assert.equal(titleProblem("a \u{1F600} b"), undefined);
});

test("deleting a session asks first, and says when that stops a run under way", () => {
  assert.equal(deleteQuestion("My plan", "idle"), "Delete “My plan” and its conversation for good?");
  assert.equal(deleteQuestion("My plan", "running"), "Delete “My plan” and its conversation for good? Its run under way is stopped.");
  assert.equal(deleteQuestion("My plan", "awaiting-approval"), "Delete “My plan” and its conversation for good? Its run under way is stopped.");
});

test("a fork is titled as its source, marked, within the server's limit and never cutting a character in half", () => {
  assert.equal(forkTitle("My plan"), "My plan (fork)");
  const long = forkTitle("x".repeat(250));
  assert.equal(long, "x".repeat(193) + " (fork)");
  assert.equal(titleProblem(long), undefined);
  const emoji = forkTitle("x".repeat(192) + "\u{1F600}" + "y".repeat(10));
  assert.equal(emoji, "x".repeat(192) + " (fork)");
  assert.equal(titleProblem(emoji), undefined);
});
