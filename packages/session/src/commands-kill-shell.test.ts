// The background shells in the state (shells.changed), and kill-shell: one stopped through the run
// under way, or straight on the runner between runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { BackgroundShellInfo } from "@harness/protocol";
import { createFakeRunner, type FakeRunner } from "./fake-runner.ts";
import { commandsFrame, settle, startSession, submitAndRun, until } from "./test-helpers.ts";

const sleeping = { id: "ab12cd", command: "sleep 100", status: "running" as const, startedAt: 1_000 };
const ended = { id: "ef34ab", command: "true", status: "completed" as const, startedAt: 2_000, endedAt: 2_100, exitCode: 0 };

test("the runs' lists of background shells become the state's shells; kill-shell sends a running one's id to the run, anything else is an error frame", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "kill-shell", shellId: "ab12cd" }));
  await until(() => client.errors.length === 1);
  assert.equal(client.errors[0].message, 'kill-shell: no background shell "ab12cd"');
  assert.equal(client.errors[0].code, "not_found");
  runner.setShells([sleeping, ended]);

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
  assert.deepEqual(runner.shellKills, [], "a run under way takes the kill");

  runner.setShells([{ ...sleeping, status: "killed", endedAt: 3_000 }, ended]);
  run.emit({ type: "shells.changed", shells: [{ ...sleeping, status: "killed", endedAt: 3_000 }, ended] });
  await until(() => client.state!.shells?.[0]?.status === "killed");
  run.emit({ type: "run.completed", result: "ok" });
  await until(() => client.state!.status === "idle");
  assert.equal(client.state!.shells?.length, 2, "the shells stay in the state between runs");
});

test("a runner that reaches no shells between runs: kill-shell with no run is refused, saying to send /tasks kill", async () => {
  const runner = createFakeRunner();
  const { shells: _shells, killShell: _kill, ...port } = runner;
  const { session, client } = await startSession({ runner: port as FakeRunner });
  session.receive(client, commandsFrame({ type: "kill-shell", shellId: "ab12cd" }));
  await until(() => client.errors.length === 1);
  assert.match(client.errors[0].message, /^kill-shell: no run is in progress; between runs, send the prompt "\/tasks kill ab12cd"/);
  assert.equal(client.errors[0].code, "not_running");
});

/** A session whose run left `shells` in the state and ended, its runner keeping them. */
async function idleWithShells(shells: BackgroundShellInfo[]) {
  const started = await startSession();
  const { runner, session, client } = started;
  runner.setShells(shells);
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "shells.changed", shells });
  run.emit({ type: "run.completed", result: "ok" });
  await until(() => client.state?.status === "idle");
  return started;
}

test("between runs a shell that ends shows in the state without another prompt: the session waits on the runner's list while one runs, and stops once none does", async () => {
  const { runner, client } = await idleWithShells([sleeping, ended]);
  await until(() => runner.shellsWaiting() === 1, "the session to wait on the runner's list");
  assert.equal(runner.shellAsks[0], undefined, "the first ask takes the list as it is");
  const done = { ...sleeping, status: "completed" as const, endedAt: 5_000, exitCode: 0 };
  runner.setShells([done, ended]);
  await until(() => client.state!.shells?.[0]?.status === "completed");
  assert.deepEqual(client.state!.shells, [done, ended]);
  assert.equal(client.state!.status, "idle");
  await settle();
  assert.equal(runner.shellsWaiting(), 0, "no shell runs: nothing more is asked");
  const asks = runner.shellAsks.length;
  await settle();
  assert.equal(runner.shellAsks.length, asks);
});

test("a run that starts takes over from the watch (its request given up on); the watch comes back once it ends", async () => {
  const { runner, session, client } = await idleWithShells([sleeping]);
  await until(() => runner.shellsWaiting() === 1);
  const run = await submitAndRun(session, client, runner, "again");
  await until(() => runner.shellsWaiting() === 0, "the watch to stop for the run");
  run.emit({ type: "run.started", requestId: "r2" }, { type: "shells.changed", shells: [sleeping] });
  run.emit({ type: "run.completed", result: "ok" });
  await until(() => client.state?.status === "idle" && runner.shellsWaiting() === 1, "the watch to come back");
});

test("between runs kill-shell goes straight to the runner and the state shows the shell killed; the runner's refusal is an error frame", async () => {
  const other = { ...sleeping, id: "cd34ef", command: "sleep 200" };
  const { runner, session, client } = await idleWithShells([sleeping, other, ended]);
  session.receive(client, commandsFrame({ type: "kill-shell", shellId: "ab12cd" }, { type: "kill-shell", shellId: "ef34ab" }));
  await until(() => client.state!.shells?.[0]?.status === "killed" && client.errors.length === 1);
  assert.deepEqual(runner.shellKills, ["ab12cd"]);
  assert.deepEqual(runner.controls, [], "no run is asked");
  assert.match(client.errors[0].message, /^kill-shell: background shell "ef34ab" is not running \(completed\)/);
  // The runner knows better than the state: the shell ended a moment ago.
  runner.shellsNow = runner.shellsNow.map((s) => (s.id === "cd34ef" ? { ...s, status: "failed" as const, exitCode: 1 } : s));
  session.receive(client, commandsFrame({ type: "kill-shell", shellId: "cd34ef" }));
  await until(() => client.errors.length === 2);
  assert.equal(client.errors[1].message, "kill-shell failed: Background shell cd34ef is not running (failed): nothing to kill.");
  assert.equal(client.errors[1].code, "runner_error");
});

test("the watch stops when the session closes, and does not start when its runner cannot be asked", async () => {
  const { runner, session, store } = await idleWithShells([sleeping]);
  await until(() => runner.shellsWaiting() === 1);
  await session.close();
  assert.equal(runner.shellsWaiting(), 0);

  const gone = createFakeRunner();
  gone.gone = true;
  gone.setShells([sleeping]);
  const reopened = await startSession({ runner: gone, store });
  await settle();
  assert.equal(gone.shellAsks.length, 1, "asked once on opening, then given up on");
  assert.equal(reopened.client.state!.shells?.[0]?.status, "running");
});

test("a runner that answers the list at once every time, changed or not, is not asked again and again", async () => {
  const runner = createFakeRunner();
  // It ignores the version asked about: every ask is answered straight away.
  let asks = 0;
  runner.shells = async () => {
    asks++;
    await new Promise((resolve) => setImmediate(resolve));
    return { ok: true, value: { version: `${asks % 2}123456789abcdef`, shells: runner.shellsNow } };
  };
  const { session, client } = await startSession({ runner });
  runner.setShells([sleeping]);
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "shells.changed", shells: [sleeping] });
  run.emit({ type: "run.completed", result: "ok" });
  try {
    await until(() => client.state?.status === "idle" && asks > 0);
    await settle();
    await settle();
    assert.ok(asks <= 2, `asked ${asks} times`);
  } finally {
    await session.close();
  }
});
