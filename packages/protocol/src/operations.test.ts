import { test } from "node:test";
import assert from "node:assert/strict";
import { applyOperations, OperationError } from "./operations.ts";
import { emptyState, HarnessStateSchema, type DeltaOperation, type HarnessState } from "./wire.ts";

const base = (): HarnessState => ({
  status: "idle",
  messages: [{ id: "m1", role: "user", content: "hi", status: "complete" }],
});

test("set and append-text build a conversation without touching the input", () => {
  const before = base();
  const frozen = structuredClone(before);
  const after = applyOperations(before, [
    { type: "set", path: ["status"], value: "running" },
    { type: "set", path: ["messages", "1"], value: { id: "m2", role: "assistant", content: "", status: "running" } },
    { type: "append-text", path: ["messages", "1", "content"], value: "Hel" },
    { type: "append-text", path: ["messages", "1", "content"], value: "lo" },
    { type: "set", path: ["messages", "1", "toolCalls"], value: [] },
    { type: "set", path: ["messages", "1", "toolCalls", "0"], value: { id: "t1", name: "Bash", status: "running" } },
    { type: "set", path: ["messages", "1", "toolCalls", "0", "status"], value: "complete" },
  ]);
  assert.deepEqual(before, frozen, "input state must not be mutated");
  assert.equal(after.status, "running");
  assert.equal(after.messages[1].content, "Hello");
  assert.equal(after.messages[1].toolCalls?.[0].status, "complete");
  assert.equal(after.messages[0], before.messages[0], "untouched branches are shared");
});

test("the background shells are set whole into the state, and one shell's status alone", () => {
  const shells = [{ id: "ab12cd", command: "sleep 30", status: "running", startedAt: 1000 }];
  const listed = applyOperations(base(), [{ type: "set", path: ["shells"], value: shells }]);
  assert.deepEqual(listed.shells, shells);
  const killed = applyOperations(listed, [{ type: "set", path: ["shells", "0", "status"], value: "killed" }]);
  assert.equal(killed.shells?.[0]?.status, "killed");
  assert.equal(listed.shells?.[0]?.status, "running", "input state must not be mutated");
  assert.equal(HarnessStateSchema.safeParse(killed).success, true);
  assert.equal(HarnessStateSchema.safeParse({ ...killed, shells: [{ id: "x", command: "y", status: "lost", startedAt: 1 }] }).success, false);
});

test("append-text creates a missing string", () => {
  const after = applyOperations(emptyState(), [{ type: "append-text", path: ["error"], value: "boom" }]);
  assert.equal(after.error, "boom");
});

test("set at the root replaces the whole state", () => {
  const next = { status: "error", messages: [] };
  assert.deepEqual(applyOperations(base(), [{ type: "set", path: [], value: next }]), next);
});

test("operations that do not fit the state throw OperationError", () => {
  assert.throws(() => applyOperations(base(), [{ type: "set", path: ["messages", "5"], value: 1 }]), OperationError);
  assert.throws(() => applyOperations(base(), [{ type: "set", path: ["messages", "x", "id"], value: 1 }]), OperationError);
  assert.throws(
    () => applyOperations(base(), [{ type: "append-text", path: ["messages", "0", "status", "x"], value: "a" }]),
    OperationError,
  );
  assert.throws(() => applyOperations(base(), [{ type: "append-text", path: ["messages"], value: "a" }]), OperationError);
});

test("replaying the same operations on equal states gives equal states", () => {
  const ops: DeltaOperation[] = [
    { type: "set", path: ["messages", "1"], value: { id: "m2", role: "assistant", content: "", status: "running" } },
    { type: "append-text", path: ["messages", "1", "content"], value: "x" },
  ];
  assert.deepEqual(applyOperations(base(), ops), applyOperations(base(), ops));
});
