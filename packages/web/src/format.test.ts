import { test } from "node:test";
import assert from "node:assert/strict";
import { backgroundShell, clip, costText, inputSummary, isLong, lineCount, segments, statusLine, underWay } from "./format.ts";

test("clip keeps the first characters and counts the rest", () => {
  assert.deepEqual(clip("abcdef", 10), { text: "abcdef", cut: 0 });
  assert.deepEqual(clip("abcdef", 4), { text: "abcd", cut: 2 });
});

test("an output is long past 8 lines or 600 characters", () => {
  assert.equal(lineCount(""), 0);
  assert.equal(lineCount("a\nb\n"), 2);
  assert.equal(isLong("1\n2\n3\n4\n5\n6\n7\n8"), false);
  assert.equal(isLong("1\n2\n3\n4\n5\n6\n7\n8\n9"), true);
  assert.equal(isLong("x".repeat(601)), true);
});

test("a call's line names what it does: the known tools' key field, else the input as JSON, on one line, cut", () => {
  assert.equal(inputSummary({ name: "Bash", input: { command: "ls -la\n  pwd", description: "list" } }), "ls -la ⏎ pwd");
  assert.equal(inputSummary({ name: "Write", input: { file_path: "a.txt", content: "long" } }), "a.txt");
  assert.equal(inputSummary({ name: "mcp__db__query", input: { sql: "select 1" } }), '{"sql":"select 1"}');
  assert.equal(inputSummary({ name: "TodoWrite" }), "");
  assert.equal(inputSummary({ name: "Bash", input: { command: "x".repeat(300) } }, 10), `${"x".repeat(9)}…`);
});

test("segments put each call where the text was when it was made, and calls without an offset last", () => {
  const call = (id: string, textOffset?: number) => ({ id, name: "Bash", status: "complete" as const, ...(textOffset !== undefined && { textOffset }) });
  assert.deepEqual(segments({ content: "before after", toolCalls: [call("a", 6), call("b")] }), [
    { kind: "text", text: "before" },
    { kind: "call", call: call("a", 6) },
    { kind: "text", text: " after" },
    { kind: "call", call: call("b") },
  ]);
  assert.deepEqual(segments({ content: "", toolCalls: [call("a", 0)] }), [{ kind: "call", call: call("a", 0) }]);
  // An offset past the text (the text not yet arrived) puts the call at its end.
  assert.deepEqual(segments({ content: "ab", toolCalls: [call("a", 9)] }), [{ kind: "text", text: "ab" }, { kind: "call", call: call("a", 9) }]);
});

test("the status line says the connection while it is not open, else the run's status, then the model and the cost", () => {
  const state = { status: "running" as const, messages: [], config: { model: "claude-x" }, spent: { usage: { inputTokens: 1, outputTokens: 1, costUsd: 0.01234 }, calls: 1, apiMs: 1, wallMs: 1 } };
  assert.equal(statusLine(state, "open"), "running · claude-x · $0.012");
  assert.equal(statusLine(state, "reconnecting"), "reconnecting… · claude-x · $0.012");
  assert.equal(statusLine(undefined, "connecting"), "connecting…");
  assert.equal(statusLine({ status: "awaiting-approval", messages: [] }, "open"), "waiting for approval");
  assert.equal(costText({ inputTokens: 0, outputTokens: 0, costUsd: 2.5, unpricedCalls: 1 }), "≥ $2.50");
  assert.equal(costText({ inputTokens: 0, outputTokens: 0 }), undefined);
  assert.equal(underWay({ status: "awaiting-approval", messages: [] }), true);
  assert.equal(underWay({ status: "error", messages: [] }), false);
});

test("a Bash call moved to the background is known by its output, which names the shell", () => {
  assert.equal(backgroundShell("Command was manually backgrounded by user with ID: 3fa9c1. Use BashOutput to read it."), "3fa9c1");
  assert.equal(backgroundShell("Command was manually backgrounded by user with ID: b2"), "b2");
  assert.equal(backgroundShell("echo Command was manually backgrounded by user with ID: x"), undefined);
  assert.equal(backgroundShell(undefined), undefined);
});
