// The background shells in the state (shells.changed), and kill-shell: one stopped through the run
// under way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { commandsFrame, startSession, submitAndRun, until } from "./test-helpers.ts";

const sleeping = { id: "ab12cd", command: "sleep 100", status: "running" as const, startedAt: 1_000 };
const ended = { id: "ef34ab", command: "true", status: "completed" as const, startedAt: 2_000, endedAt: 2_100, exitCode: 0 };

test("the runs' lists of background shells become the state's shells; kill-shell sends a running one's id to the run, anything else is an error frame", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "kill-shell", shellId: "ab12cd" }));
  await until(() => client.errors.length === 1);
  assert.match(client.errors[0].message, /^kill-shell: no run is in progress; between runs, send the prompt "\/tasks kill ab12cd"/);
  assert.equal(client.errors[0].code, "not_running");

  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "shells.changed", shells: [sleeping, ended] });
  await until(() => client.state!.shells?.length === 2);
  assert.deepEqual(client.state!.shells, [sleeping, ended]);

  session.receive(client, commandsFrame({ type: "kill-shell", shellId: "nope" }, { type: "kill-shell", shellId: "ef34ab" }, { type: "kill-shell", shellId: "ab12cd" }));
  await until(() => client.errors.length === 3 && runner.controls.length === 1);
  assert.match(client.errors[1].message, /^kill-shell: no background shell "nope"; the shells are ab12cd, ef34ab/);
  assert.equal(client.errors[1].code, "not_found");
  assert.match(client.errors[2].message, /^kill-shell: background shell "ef34ab" is not running \(completed\)/);
  assert.deepEqual(runner.controls, [{ requestId: "r1", control: { type: "kill-shell", shellId: "ab12cd" } }]);

  run.emit({ type: "shells.changed", shells: [{ ...sleeping, status: "killed", endedAt: 3_000 }, ended] });
  await until(() => client.state!.shells?.[0]?.status === "killed");
  run.emit({ type: "run.completed", result: "ok" });
  await until(() => client.state!.status === "idle");
  assert.equal(client.state!.shells?.length, 2, "the shells stay in the state between runs");
});
