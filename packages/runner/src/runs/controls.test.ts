import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent } from "@harness/protocol";
import { createApprovals, createConfigureHub, createSteerQueue } from "./controls.ts";

test("two pending approvals are answered independently, each announced and resolved by events", async () => {
  const events: AgentEvent[] = [];
  const approvals = createApprovals((e) => events.push(e), new AbortController().signal);
  const first = approvals.request({ toolUseId: "a", toolName: "Bash", description: "rm -rf build", input: { command: "rm -rf build" } });
  const second = approvals.request({ toolUseId: "b", toolName: "Write", description: "notes.txt" });
  assert.deepEqual(approvals.pending(), ["a", "b"]);

  assert.equal(approvals.answer("b", { behavior: "deny", reason: "not that file" }), true);
  assert.deepEqual(await second, { behavior: "deny", reason: "not that file" });
  assert.deepEqual(approvals.pending(), ["a"]);
  assert.equal(approvals.answer("b", { behavior: "allow" }), false, "an answered call is no longer pending");
  assert.equal(approvals.answer("zzz", { behavior: "allow" }), false);

  assert.equal(approvals.answer("a", { behavior: "allow" }), true);
  assert.deepEqual(await first, { behavior: "allow" });
  assert.deepEqual(events, [
    { type: "approval.requested", toolUseId: "a", toolName: "Bash", description: "rm -rf build", input: { command: "rm -rf build" } },
    { type: "approval.requested", toolUseId: "b", toolName: "Write", description: "notes.txt" },
    { type: "approval.resolved", toolUseId: "b", behavior: "deny", reason: "not that file" },
    { type: "approval.resolved", toolUseId: "a", behavior: "allow" },
  ]);
});

test("the run's abort denies every pending approval with 'cancelled'", async () => {
  const controller = new AbortController();
  const events: AgentEvent[] = [];
  const approvals = createApprovals((e) => events.push(e), controller.signal);
  const pending = [approvals.request({ toolUseId: "a", toolName: "Bash", description: "x" }), approvals.request({ toolUseId: "b", toolName: "Bash", description: "y" })];
  controller.abort();
  assert.deepEqual(await Promise.all(pending), [
    { behavior: "deny", reason: "cancelled" },
    { behavior: "deny", reason: "cancelled" },
  ]);
  assert.deepEqual(approvals.pending(), []);
  assert.deepEqual(await approvals.request({ toolUseId: "c", toolName: "Bash", description: "z" }), { behavior: "deny", reason: "cancelled" });
  assert.equal(events.filter((e) => e.type === "approval.resolved").length, 3);
});

test("steer messages wait for take() in order, or go straight to a subscriber, never both", () => {
  const queue = createSteerQueue();
  queue.push("one");
  queue.push("two");
  assert.deepEqual(queue.take(), ["one", "two"]);
  assert.deepEqual(queue.take(), []);
  const got: string[] = [];
  const stop = queue.subscribe((m) => got.push(m));
  queue.push("three");
  stop();
  queue.push("four");
  assert.deepEqual(got, ["three"]);
  assert.deepEqual(queue.take(), ["four"]);
});

test("configure listeners get each change; one that subscribes late gets the earlier ones merged", () => {
  const hub = createConfigureHub();
  const early: unknown[] = [];
  hub.subscribe((c) => early.push(c));
  hub.push({ model: "m2" });
  hub.push({ effort: "high" });
  const late: unknown[] = [];
  const stop = hub.subscribe((c) => late.push(c));
  hub.push({ maxTurns: 3 });
  stop();
  hub.push({ model: "m3" });
  assert.deepEqual(early, [{ model: "m2" }, { effort: "high" }, { maxTurns: 3 }, { model: "m3" }]);
  assert.deepEqual(late, [{ model: "m2", effort: "high" }, { maxTurns: 3 }]);
});
