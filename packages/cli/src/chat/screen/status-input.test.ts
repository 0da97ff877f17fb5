// The JSON a statusLine command reads, from states built here: what the state lets be known is
// there, as Claude Code gives it; what it does not is left out rather than made up.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { HarnessState, HarnessToolCall } from "@harness/protocol";
import { modelDisplayName } from "./model-display-name.ts";
import { statusLineInput, statusLineKey, type StatusLineContext } from "./status-input.ts";

const context: StatusLineContext = { sessionId: "s1", cwd: "/project", version: "0.1.0", env: {} };

function withCalls(...calls: HarnessToolCall[]): HarnessState {
  return {
    status: "idle",
    config: { model: "claude-sonnet-4-5" },
    messages: [
      { id: "u1", role: "user", content: "change things", status: "complete" },
      { id: "a1", role: "assistant", content: "done", status: "complete", toolCalls: calls },
    ],
  };
}

const call = (id: string, name: string, input: Record<string, unknown>, status: HarnessToolCall["status"] = "complete"): HarnessToolCall => ({ id, name, status, input });

test("the lines added and removed are counted from the session's finished edits, as a diff counts them", () => {
  const state = withCalls(
    // b becomes B and d is added: 1 removed, 2 added.
    call("e1", "Edit", { file_path: "a.txt", old_string: "a\nb\nc\n", new_string: "a\nB\nc\nd\n" }),
    // x becomes y (1 and 1); "two" goes (1 removed).
    call("m1", "MultiEdit", { file_path: "b.txt", edits: [{ old_string: "x", new_string: "y" }, { old_string: "one\ntwo", new_string: "one" }] }),
    call("w1", "Write", { file_path: "c.txt", content: "1\n2\n3\n" }),
    // An Edit with nothing to replace creates the file: every line added.
    call("e2", "Edit", { file_path: "d.txt", old_string: "", new_string: "n1\nn2" }),
    // A sub-agent's edit is the session's too.
    { ...call("w2", "Write", { file_path: "e.txt", content: "s\n" }), parentToolCallId: "task1" },
    // Not made, or not an edit: not counted.
    call("e3", "Edit", { file_path: "a.txt", old_string: "q", new_string: "r\ns" }, "denied"),
    call("w3", "Write", { file_path: "f.txt", content: "no\n" }, "error"),
    call("w4", "Write", { file_path: "g.txt", content: "later\n" }, "running"),
    call("r1", "Read", { file_path: "a.txt" }),
  );
  const cost = statusLineInput(state, context).cost as Record<string, unknown>;
  assert.equal(cost.total_lines_added, 2 + 1 + 3 + 2 + 1);
  assert.equal(cost.total_lines_removed, 1 + 2);
});

test("an edit whose input is not what the tool takes is skipped, and a session with no edits counts none", () => {
  const state = withCalls(
    call("e1", "Edit", { file_path: "a.txt", old_string: 3, new_string: "x" }),
    call("m1", "MultiEdit", { file_path: "b.txt", edits: "nope" }),
    call("m2", "MultiEdit", { file_path: "b.txt", edits: [null, { old_string: "a", new_string: "b\nc" }] }),
    call("w1", "Write", { file_path: "c.txt" }),
    { id: "w2", name: "Write", status: "complete" },
  );
  const cost = statusLineInput(state, context).cost as Record<string, unknown>;
  assert.equal(cost.total_lines_added, 2);
  assert.equal(cost.total_lines_removed, 1);
  const none = statusLineInput({ status: "idle", messages: [] }, context).cost as Record<string, unknown>;
  assert.equal(none.total_lines_added, 0);
  assert.equal(none.total_lines_removed, 0);
});

test("the last model call's usage is the context window's current usage, and says whether it passed 200k tokens", () => {
  const lastCall = { inputTokens: 40, outputTokens: 9, cacheReadTokens: 150_000, cacheWriteTokens: 9_960 };
  const state: HarnessState = { ...withCalls(), usage: { inputTokens: 500_000, outputTokens: 3_000 }, lastCall };
  const input = statusLineInput(state, context);
  const window = input.context_window as Record<string, unknown>;
  assert.deepEqual(window.current_usage, { input_tokens: 40, output_tokens: 9, cache_creation_input_tokens: 9_960, cache_read_input_tokens: 150_000 });
  assert.equal(window.context_window_size, 200_000);
  // 160,000 of 200,000 tokens in: 80 %.
  assert.equal(window.used_percentage, 80);
  assert.equal(window.remaining_percentage, 20);
  assert.equal(input.exceeds_200k_tokens, false);

  const big = statusLineInput({ ...state, lastCall: { ...lastCall, cacheReadTokens: 190_000, outputTokens: 1 } }, context);
  assert.equal(big.exceeds_200k_tokens, true, "input, cache and output tokens together: 200,001");
});

test("before any model call the current usage is null; a state that does not carry the last call leaves it out", () => {
  const fresh = statusLineInput(withCalls(), context);
  assert.equal((fresh.context_window as Record<string, unknown>).current_usage, null);
  assert.equal(fresh.exceeds_200k_tokens, false);

  const older = statusLineInput({ ...withCalls(), usage: { inputTokens: 10, outputTokens: 2 } }, context);
  const window = older.context_window as Record<string, unknown>;
  assert.ok(!("current_usage" in window) && !("used_percentage" in window));
  assert.ok(!("exceeds_200k_tokens" in older));
});

test("no transcript file is named, and a Claude model's display name is its family and version", () => {
  const input = statusLineInput(withCalls(), context);
  assert.ok(!("transcript_path" in input));
  assert.deepEqual(input.model, { id: "claude-sonnet-4-5", display_name: "Sonnet 4.5" });
  const names = ["claude-opus-4-1-20250805", "claude-opus-4-20250514", "claude-3-5-haiku-20241022", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-haiku-4-5@20251001", "gpt-4.1", "openai/gpt-4o"].map(modelDisplayName);
  assert.deepEqual(names, ["Opus 4.1", "Opus 4", "Haiku 3.5", "Sonnet 4.5", "Haiku 4.5", "gpt-4.1", "openai/gpt-4o"]);
});

test("a finished edit, or a new last call, makes the status line run again", () => {
  const running: HarnessState = { ...withCalls(call("e1", "Edit", { file_path: "a", old_string: "a", new_string: "b" }, "running")), status: "running" };
  running.messages[1].status = "running";
  const done = structuredClone(running);
  done.messages[1].toolCalls![0].status = "complete";
  assert.notEqual(statusLineKey(done), statusLineKey(running));
  assert.notEqual(statusLineKey({ ...running, lastCall: { inputTokens: 1, outputTokens: 1 } }), statusLineKey(running));
});

test("while a run goes, each model call it reports runs the status line again, with the cost and the context as they now are", () => {
  const running = (inputTokens: number, costUsd: number): HarnessState => ({
    status: "running",
    messages: [{ id: "u", role: "user", content: "go", status: "complete" }, { id: "a", role: "assistant", content: "working", status: "running" }],
    usage: { inputTokens, outputTokens: 10, costUsd },
    lastCall: { inputTokens, outputTokens: 10 },
  });
  const first = running(1000, 0.01);
  const second = running(3000, 0.03);
  assert.notEqual(statusLineKey(first), statusLineKey(second));
  const input = statusLineInput(second, context) as { cost: { total_cost_usd?: number }; context_window?: { current_usage?: { input_tokens: number } } };
  assert.equal(input.cost.total_cost_usd, 0.03);
  assert.equal(input.context_window?.current_usage?.input_tokens, 3000);
});
