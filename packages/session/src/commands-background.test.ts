// background: a running Bash call moved to the background through the runner, the run going on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { commandsFrame, startSession, submitAndRun, until } from "./test-helpers.ts";

test("background sends the running Bash call's id (or none: every running one) to the runner; any other call is an error frame naming it", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "background" }));
  await until(() => client.errors.length === 1);
  assert.match(client.errors[0].message, /^background: no run is in progress/);

  const run = await submitAndRun(session, client, runner);
  run.emit(
    { type: "run.started", requestId: "r1" },
    { type: "tool.started", toolName: "Read", toolUseId: "read1", input: { file_path: "/a" } },
    { type: "tool.started", toolName: "Bash", toolUseId: "bash1", input: { command: "sleep 100" } },
    { type: "tool.started", toolName: "Bash", toolUseId: "bash2", input: { command: "true" } },
    { type: "tool.completed", toolUseId: "bash2", output: "", isError: false },
  );
  await until(() => client.state!.messages[1].toolCalls?.length === 3 && client.state!.messages[1].toolCalls[2].status === "complete");
  session.receive(
    client,
    commandsFrame({ type: "background", toolCallId: "nope" }, { type: "background", toolCallId: "read1" }, { type: "background", toolCallId: "bash2" }),
  );
  await until(() => client.errors.length === 4);
  assert.match(client.errors[1].message, /^background: no tool call "nope" in the run in progress/);
  assert.equal(client.errors[1].code, "not_found");
  assert.match(client.errors[2].message, /^background: "read1" is a Read call; only a Bash call goes to the background/);
  assert.equal(client.errors[2].command, 1);
  assert.match(client.errors[3].message, /^background: the Bash call "bash2" is not running \(complete\)/);

  session.receive(client, commandsFrame({ type: "background", toolCallId: "bash1" }, { type: "background" }));
  await until(() => runner.controls.length === 2);
  assert.deepEqual(runner.controls, [
    { requestId: "r1", control: { type: "background", toolUseId: "bash1" } },
    { requestId: "r1", control: { type: "background" } },
  ]);
  runner.onControl = () => ({ ok: false, status: 404, message: "no Bash call is running" });
  session.receive(client, commandsFrame({ type: "background" }));
  await until(() => client.errors.length === 5);
  assert.match(client.errors[4].message, /^background failed: no Bash call is running/);

  run.emit({ type: "tool.completed", toolUseId: "bash1", output: "Command was manually backgrounded by user with ID: abc123.", isError: false });
  await until(() => client.state!.messages[1].toolCalls![1].status === "complete");
  session.receive(client, commandsFrame({ type: "background" }));
  await until(() => client.errors.length === 6);
  assert.match(client.errors[5].message, /^background: no Bash call of the run in progress is running/);
});
