// stop-agent: the sub-agent of one running Task call stopped through the runner, the run going on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { commandsFrame, startSession, submitAndRun, until } from "./test-helpers.ts";

test("stop-agent sends the running Task call's id to the runner; any other call is an error frame naming it", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit(
    { type: "run.started", requestId: "r1" },
    { type: "tool.started", toolName: "Task", toolUseId: "task1", input: { subagent_type: "Explore", description: "look", prompt: "Look." } },
    { type: "tool.started", toolName: "Read", toolUseId: "read1", parentToolUseId: "task1", agentId: "agent_1" },
  );
  await until(() => client.state!.messages[1].toolCalls?.length === 2);
  session.receive(client, commandsFrame({ type: "stop-agent", toolCallId: "read1" }, { type: "stop-agent", toolCallId: "nope" }));
  await until(() => client.errors.length === 2);
  assert.match(client.errors[0].message, /stop-agent: no Task call "read1" of the run in progress is running a sub-agent/);
  assert.equal(client.errors[1].command, 1);

  session.receive(client, commandsFrame({ type: "stop-agent", toolCallId: "task1" }));
  await until(() => runner.controls.length === 1);
  assert.deepEqual(runner.controls[0], { requestId: "r1", control: { type: "stop-agent", toolUseId: "task1" } });
  runner.onControl = () => ({ ok: false, status: 404, message: "no sub-agent of that call is running" });
  session.receive(client, commandsFrame({ type: "stop-agent", toolCallId: "task1" }));
  await until(() => client.errors.length === 3);
  assert.match(client.errors[2].message, /stop-agent failed: no sub-agent of that call is running/);

  run.emit({ type: "tool.completed", toolUseId: "task1", output: "Interrupted by user", isError: true }, { type: "run.completed" });
  await until(() => !session.busy);
  session.receive(client, commandsFrame({ type: "stop-agent", toolCallId: "task1" }));
  await until(() => client.errors.length === 4);
});
