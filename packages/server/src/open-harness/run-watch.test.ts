import { test } from "node:test";
import assert from "node:assert/strict";
import type { DeltaOperation, HarnessState, ServerMessage } from "@harness/protocol";
import { INTERRUPTED_MESSAGE } from "@harness/session";
import { RunWatch, type ExecutionEvent } from "./run-watch.ts";

const before: HarnessState = {
  status: "idle",
  messages: [
    { id: "u0", role: "user", content: "earlier", status: "complete" },
    { id: "a0", role: "assistant", content: "earlier reply", status: "complete" },
  ],
  usage: { inputTokens: 100, outputTokens: 10 },
};

function watching(prompt = "list files"): { watch: RunWatch; events: ExecutionEvent[]; delta(...operations: DeltaOperation[]): void } {
  const events: ExecutionEvent[] = [];
  const watch = new RunWatch(prompt, (event) => events.push(event));
  watch.frame({ type: "state", state: structuredClone(before), seq: 4 });
  let seq = 4;
  return { watch, events, delta: (...operations) => watch.frame({ type: "delta", operations, seq: ++seq }) };
}

const started: DeltaOperation[] = [
  { type: "set", path: ["status"], value: "running" },
  { type: "set", path: ["messages", "2"], value: { id: "u1", role: "user", content: "list files", status: "complete" } },
  { type: "set", path: ["messages", "3"], value: { id: "a1", role: "assistant", content: "", status: "running" } },
];

test("a run's thinking, text and tool calls come as events in the order they happened; done carries the run's own usage", () => {
  const { watch, events, delta } = watching();
  assert.deepEqual(events, [], "the snapshot of what was there before says nothing");
  delta(...started);
  delta({ type: "set", path: ["messages", "3", "thinking"], value: "Hmm" }, { type: "append-text", path: ["messages", "3", "content"], value: "Looking" });
  delta({ type: "set", path: ["messages", "3", "toolCalls"], value: [{ id: "t1", name: "Glob", status: "running", input: { pattern: "*" } }] });
  delta({ type: "set", path: ["messages", "3", "toolCalls", "0", "status"], value: "complete" }, { type: "set", path: ["messages", "3", "toolCalls", "0", "output"], value: "a.md" });
  assert.equal(watch.status, "running");
  delta(
    { type: "append-text", path: ["messages", "3", "content"], value: ": one file." },
    { type: "set", path: ["messages", "3", "status"], value: "complete" },
    { type: "set", path: ["status"], value: "idle" },
    { type: "set", path: ["usage"], value: { inputTokens: 130, outputTokens: 25 } },
  );
  assert.deepEqual(events, [
    { type: "thinking", content: "Hmm" },
    { type: "text", content: "Looking" },
    { type: "tool_call_start", id: "t1", name: "Glob", input: { pattern: "*" } },
    { type: "tool_call_end", id: "t1" },
    { type: "tool_result", id: "t1", success: true, output: { text: "a.md" } },
    { type: "text", content: ": one file." },
    { type: "done", usage: { input_tokens: 30, output_tokens: 15, total_tokens: 45 } },
  ]);
  assert.equal(watch.status, "completed");
  assert.equal(watch.output, "Looking: one file.");
  assert.deepEqual(watch.summaries().map(({ id, name, success }) => ({ id, name, success })), [{ id: "t1", name: "Glob", success: true }]);
  assert.deepEqual(watch.mine().map((m) => m.id), ["u1", "a1"]);
});

test("a denied call is a failed tool result; a cancelled reply a cancelled execution", () => {
  const { watch, events, delta } = watching();
  delta(...started, { type: "set", path: ["messages", "3", "toolCalls"], value: [{ id: "t1", name: "Bash", status: "awaiting-approval", input: { command: "rm -rf x" } }] });
  delta({ type: "set", path: ["messages", "3", "toolCalls", "0", "status"], value: "denied" });
  delta({ type: "set", path: ["messages", "3", "status"], value: "cancelled" }, { type: "set", path: ["status"], value: "idle" });
  assert.deepEqual(
    events.map((e) => e.type),
    ["tool_call_start", "tool_call_end", "tool_result", "done"],
  );
  assert.equal((events[2] as { success: boolean }).success, false);
  assert.equal(watch.status, "cancelled");
});

test("a failed run ends with an error event naming why, then done", () => {
  const { watch, events, delta } = watching();
  delta(...started);
  delta({ type: "set", path: ["messages", "3", "status"], value: "error" }, { type: "set", path: ["status"], value: "error" }, { type: "set", path: ["error"], value: "model overloaded" });
  assert.deepEqual(events, [
    { type: "error", code: "run_failed", message: "model overloaded", recoverable: true },
    { type: "done", usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 } },
  ]);
  assert.equal(watch.status, "failed");
});

test("a run another client started before this one's prompt is not this execution's, nor is its usage", () => {
  const { watch, events, delta } = watching();
  delta(
    { type: "set", path: ["status"], value: "running" },
    { type: "set", path: ["messages", "2"], value: { id: "u1", role: "user", content: "someone else's", status: "complete" } },
    { type: "set", path: ["messages", "3"], value: { id: "a1", role: "assistant", content: "", status: "running" } },
  );
  delta({ type: "append-text", path: ["messages", "3", "content"], value: "theirs" });
  delta({ type: "set", path: ["messages", "3", "status"], value: "complete" }, { type: "set", path: ["status"], value: "idle" }, { type: "set", path: ["usage"], value: { inputTokens: 150, outputTokens: 20 } });
  assert.equal(watch.status, "pending");
  assert.deepEqual(events, []);
  delta(
    { type: "set", path: ["status"], value: "running" },
    { type: "set", path: ["messages", "4"], value: { id: "u2", role: "user", content: "list files", status: "complete" } },
    { type: "set", path: ["messages", "5"], value: { id: "a2", role: "assistant", content: "", status: "running" } },
  );
  delta({ type: "append-text", path: ["messages", "5", "content"], value: "mine" });
  delta({ type: "set", path: ["messages", "5", "status"], value: "complete" }, { type: "set", path: ["status"], value: "idle" }, { type: "set", path: ["usage"], value: { inputTokens: 160, outputTokens: 23 } });
  assert.deepEqual(events, [
    { type: "text", content: "mine" },
    { type: "done", usage: { input_tokens: 10, output_tokens: 3, total_tokens: 13 } },
  ]);
  assert.deepEqual(watch.mine().map((m) => m.id), ["u2", "a2"]);
});

test("a refused submit fails the execution before it runs; other error frames say nothing of it", () => {
  const { watch, events } = watching();
  const refused: ServerMessage = { type: "error", message: "a run is in progress", code: "busy", command: 0 };
  watch.frame({ type: "error", message: "unrelated", code: "x" });
  assert.equal(watch.status, "pending");
  watch.frame(refused);
  assert.equal(watch.status, "failed");
  assert.deepEqual(events.map((e) => e.type), ["error", "done"]);
  assert.equal((events[0] as { code: string }).code, "busy");
  watch.frame(refused);
  assert.equal(events.length, 2, "nothing after done");
});

test("a run the server interrupted as it stopped is a failed execution saying so, not a cancelled one", () => {
  const { watch, events, delta } = watching();
  delta(...started);
  delta({ type: "append-text", path: ["messages", "3", "content"], value: "half" });
  delta(
    { type: "set", path: ["messages", "3", "status"], value: "cancelled" },
    { type: "set", path: ["status"], value: "error" },
    { type: "set", path: ["error"], value: INTERRUPTED_MESSAGE },
  );
  assert.equal(watch.status, "failed");
  assert.deepEqual(events.slice(-2).map((e) => e.type), ["error", "done"]);
  assert.deepEqual(events.at(-2), { type: "error", code: "server_stopped", message: INTERRUPTED_MESSAGE, recoverable: false });
});
