// controlRun: a host's control of the run in progress, answered with what the runner said.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startSession, submitAndRun, until } from "./test-helpers.ts";

const todos = [{ content: "Ship it", status: "pending" as const, activeForm: "Shipping it" }];

test("controlRun reaches the run's runner and answers its answer; with no run, or one not started, 409", async () => {
  const { runner, session, client } = await startSession();
  assert.deepEqual(await session.controlRun({ type: "todos", todos }), { ok: false, status: 409, message: "no run is in progress" });
  const run = await submitAndRun(session, client, runner);
  assert.deepEqual(await session.controlRun({ type: "todos", todos }), { ok: false, status: 409, message: "the run has not started on its runner yet" });
  run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "On it." });
  await until(() => client.state!.messages.at(-1)?.content === "On it.");
  assert.deepEqual(await session.controlRun({ type: "todos", todos }), { ok: true, value: undefined });
  assert.deepEqual(runner.controls.at(-1), { requestId: "r1", control: { type: "todos", todos } });
  runner.onControl = () => ({ ok: false, status: 501, message: "its backend keeps its own" });
  assert.deepEqual(await session.controlRun({ type: "todos", todos }), { ok: false, status: 501, message: "its backend keeps its own" });
  assert.equal(client.errors.length, 0, "the clients hear nothing of it");
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});
