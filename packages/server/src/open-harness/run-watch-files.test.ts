import { test } from "node:test";
import assert from "node:assert/strict";
import type { DeltaOperation, HarnessState } from "@harness/protocol";
import { frozenWatch, readRecord, recordOf } from "./execution-record.ts";
import { RunWatch } from "./run-watch.ts";

const before: HarnessState = { status: "idle", messages: [] };

test("the files a run made, in the order first seen: its writing calls', each call's reported files (told before the calls after it), and the run's own", () => {
  const told: string[][] = [];
  const events: string[] = [];
  const watch = new RunWatch("build", (event) => events.push(event.type === "tool_result" ? `result ${event.id}` : event.type), () => {}, () => {
    told.push([...watch.touched]);
    events.push("told");
  });
  watch.frame({ type: "state", state: before, seq: 1 });
  let seq = 1;
  const delta = (...operations: DeltaOperation[]) => watch.frame({ type: "delta", operations, seq: ++seq });
  delta(
    { type: "set", path: ["status"], value: "running" },
    { type: "set", path: ["messages", "0"], value: { id: "u1", role: "user", content: "build", status: "complete" } },
    { type: "set", path: ["messages", "1"], value: { id: "a1", role: "assistant", content: "", status: "running" } },
  );
  const call = (id: string, name: string, input: Record<string, string>) => ({ id, name, status: "running", input });
  delta({ type: "set", path: ["messages", "1", "toolCalls"], value: [call("t1", "Bash", { command: "make" })] });
  delta({ type: "set", path: ["messages", "1", "toolCalls", "0", "status"], value: "complete" });
  assert.deepEqual(told, [], "a shell command names no file");
  // The report of the Bash call, and a Write after it, in one frame: the report's files come first.
  delta(
    { type: "set", path: ["messages", "1", "changedFiles"], value: { paths: ["build/out.txt"] } },
    { type: "set", path: ["messages", "1", "toolCalls", "0", "changedFiles"], value: ["build/out.txt"] },
    { type: "set", path: ["messages", "1", "toolCalls", "1"], value: call("t2", "Write", { file_path: "/ws/a.md" }) },
    { type: "set", path: ["messages", "1", "toolCalls", "1", "status"], value: "complete" },
  );
  assert.deepEqual(told, [["build/out.txt"], ["build/out.txt", "/ws/a.md"]]);
  assert.deepEqual(events, ["tool_call_start", "tool_call_end", "result t1", "told", "tool_call_start", "tool_call_end", "result t2", "told"]);
  // A failed write names nothing; a file named again is not told again.
  delta({ type: "set", path: ["messages", "1", "toolCalls", "2"], value: { ...call("t3", "Edit", { file_path: "b.md" }), status: "error" } });
  delta({ type: "set", path: ["messages", "1", "toolCalls", "1", "changedFiles"], value: ["/ws/a.md"] });
  assert.equal(told.length, 2);
  // The run's end: a file no call was first to make, and the list cut.
  delta(
    { type: "set", path: ["messages", "1", "changedFiles", "paths", "1"], value: "late.txt" },
    { type: "set", path: ["messages", "1", "changedFiles", "truncated"], value: true },
    { type: "set", path: ["messages", "1", "status"], value: "complete" },
    { type: "set", path: ["status"], value: "idle" },
  );
  assert.deepEqual(watch.touched, ["build/out.txt", "/ws/a.md", "late.txt"]);
  assert.equal(watch.filesTruncated, true);
  assert.deepEqual(events.slice(-2), ["told", "done"]);
});

test("the files a run made are stored with it; a record of an earlier version gives those its writing calls named", () => {
  const watch = new RunWatch("build", () => {});
  watch.touched.push("build/out.txt", "/ws/a.md");
  watch.filesTruncated = true;
  const row = { id: "e1", userId: "alice", sessionId: "s", startedAt: 0, status: "completed", record: JSON.stringify(recordOf(watch, [])) };
  const frozen = frozenWatch("completed", () => readRecord(row));
  assert.deepEqual(frozen.touched, ["build/out.txt", "/ws/a.md"]);
  assert.equal(frozen.filesTruncated, true);

  const call = (name: string, input: Record<string, unknown>, status = "completed") => ({ id: name, name, input, status, started_at: new Date(0).toISOString() });
  const earlier = { status: "completed", output: "", usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 }, events: [], summaries: [], tool_calls: [call("Write", { file_path: "a.md" }), call("Edit", { file_path: "b.md" }, "failed"), call("Bash", { command: "make" })] };
  const old = frozenWatch("completed", () => readRecord({ ...row, record: JSON.stringify(earlier) }));
  assert.deepEqual(old.touched, ["a.md"]);
  assert.equal(old.filesTruncated, false);
});
