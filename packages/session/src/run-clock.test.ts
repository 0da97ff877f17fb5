// The state says when the run under way started (runStartedAt), so that a client joining it later
// counts from then.
import { test } from "node:test";
import assert from "node:assert/strict";
import { commandsFrame, recorder, startSession, submitAndRun, until } from "./test-helpers.ts";

test("a run's start is in the state while it is under way, the same for a client that joins later, and cleared once it ends", async () => {
  const { runner, session, client } = await startSession();
  const before = Date.now();
  const run = await submitAndRun(session, client, runner);
  const startedAt = client.state!.runStartedAt;
  assert.equal(typeof startedAt, "number");
  assert.ok(startedAt! >= before && startedAt! <= Date.now(), `${startedAt} is not now`);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "approval.requested", toolUseId: "t1", toolName: "Bash", description: "ls" });
  await until(() => client.state!.status === "awaiting-approval");
  assert.equal(client.state!.runStartedAt, startedAt, "waiting for an approval, the run goes on");
  await new Promise((resolve) => setTimeout(resolve, 5));
  run.emit({ type: "approval.resolved", toolUseId: "t1", behavior: "allow" }, { type: "assistant.delta", text: "ok" });
  await until(() => client.state!.status === "running" && client.state!.messages[1].content === "ok");
  assert.equal(client.state!.runStartedAt, startedAt, "answered, the run is the same run");
  const late = recorder();
  session.connect(late);
  assert.equal(late.state!.runStartedAt, startedAt);
  run.emit({ type: "run.completed" });
  await until(() => client.state!.status === "idle");
  assert.equal(client.state!.runStartedAt, null);
  assert.deepEqual(client.state, session.snapshot().state);
});

test("a cancelled run's start is cleared too, and the next run has its own", async () => {
  const { runner, session, client } = await startSession();
  await submitAndRun(session, client, runner);
  const first = client.state!.runStartedAt;
  session.receive(client, commandsFrame({ type: "cancel" }));
  await until(() => client.state!.status !== "running");
  assert.equal(client.state!.runStartedAt, null);
  await new Promise((resolve) => setTimeout(resolve, 5));
  await submitAndRun(session, client, runner, "again");
  assert.ok(client.state!.runStartedAt! > first!, "the second run starts later");
});
