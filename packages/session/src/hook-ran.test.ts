// A run's hook.ran events reach the host (SessionOptions.onHookRan), once each, and change nothing
// of the conversation.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { RunnerEvent } from "@harness/protocol";
import { startSession, submitAndRun, until } from "./test-helpers.ts";

test("each hook.ran of a run is handed to the host and leaves the state as it was", async () => {
  const told: Extract<RunnerEvent, { type: "hook.ran" }>[] = [];
  const { runner, session, client } = await startSession({ onHookRan: (event) => told.push(event) });
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "Hello" });
  await until(() => session.snapshot().state.messages.at(-1)?.content === "Hello", "the reply so far");
  const before = session.snapshot().state;
  run.emit({ type: "hook.ran", hookEvent: "PreToolUse", matcher: "Bash", kind: "command", command: "true", outcome: "success", durationMs: 3, exitCode: 0 });
  await until(() => told.length === 1, "the hook told");
  assert.deepEqual(session.snapshot().state, before);
  assert.deepEqual({ ...told[0], seq: 0 }, { type: "hook.ran", seq: 0, hookEvent: "PreToolUse", matcher: "Bash", kind: "command", command: "true", outcome: "success", durationMs: 3, exitCode: 0 });
  run.emit({ type: "run.completed" });
  await until(() => !session.busy, "the run's end");
  assert.equal(told.length, 1);
});
