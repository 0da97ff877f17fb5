// The state's `steers`: every client sees the steers on their way to the model, "sending" until the
// run holds them, "queued" until the model reads them, and none once the run is over.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { HarnessState } from "@harness/protocol";
import { commandsFrame, recorder, startSession, submitAndRun, settle, until } from "./test-helpers.ts";

const listed = (state: HarnessState | undefined) => state?.steers?.map((s) => [s.message, s.status]);

test("a steer is listed for every client as sending, then queued once the run holds it, and goes in the batch that shows the model read it", async () => {
  const { runner, session, client } = await startSession();
  const other = recorder();
  session.connect(other);
  const run = await submitAndRun(session, client, runner, "fix the bug");
  run.emit({ type: "run.started", requestId: "r1" }, { type: "tool.started", toolName: "Bash", toolUseId: "t1" });
  let answer!: () => void;
  runner.onControl = () => new Promise((resolve) => (answer = () => resolve({ ok: true, value: undefined })));
  session.receive(client, commandsFrame({ type: "steer", message: "also add a test" }));
  await until(() => runner.controls.length === 1);
  assert.deepEqual(listed(client.state), [["also add a test", "sending"]]);
  assert.deepEqual(listed(other.state), [["also add a test", "sending"]], "a client that did not send it sees it too");

  answer();
  await until(() => other.state!.steers?.[0]?.status === "queued", "the steer queued");
  // A client that joins now gets it in its snapshot.
  const late = recorder();
  session.connect(late);
  assert.deepEqual(listed(late.state), [["also add a test", "queued"]]);
  assert.equal(client.state!.messages.length, 2, "the conversation shows it only once the model has it");

  run.emit({ type: "tool.completed", toolUseId: "t1", output: "ok", isError: false }, { type: "user.message", text: "also add a test", steer: true });
  await until(() => other.state!.messages.length === 4);
  const batch = other.frames.at(-1)!;
  assert.equal(batch.type, "delta");
  assert.ok(batch.type === "delta" && batch.operations.some((op) => op.path[0] === "steers"), "gone in the same batch as its user message");
  assert.deepEqual(listed(other.state), []);
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
  assert.deepEqual(client.state, session.snapshot().state);
});

test("steers passed on as one message all go; one not in it stays queued", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  session.receive(client, commandsFrame({ type: "steer", message: "first" }, { type: "steer", message: "second" }, { type: "steer", message: "third" }));
  await settle();
  assert.deepEqual(listed(client.state), [["first", "sending"], ["second", "sending"], ["third", "sending"]], "sending until the runner names the run");
  run.emit({ type: "run.started", requestId: "r9" });
  await until(() => client.state!.steers!.every((s) => s.status === "queued"));
  run.emit({ type: "user.message", text: "first\n\nsecond", steer: true });
  await until(() => client.state!.steers!.length === 1);
  assert.deepEqual(listed(client.state), [["third", "queued"]]);
  run.emit({ type: "user.message", text: "third", steer: true }, { type: "run.completed" });
  await until(() => !session.busy);
  assert.deepEqual(listed(client.state), []);
});

test("a steer the runner refuses leaves the list with the error frame to its sender", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" });
  runner.onControl = () => ({ ok: false, status: 404, message: "no run r1" });
  session.receive(client, commandsFrame({ type: "steer", message: "kept" }));
  await until(() => client.errors.length === 1);
  assert.match(client.errors[0].message, /steer failed: no run r1/);
  await settle();
  assert.deepEqual(listed(client.state), []);
  assert.deepEqual(client.state, session.snapshot().state);
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("a run's end empties the list in the batch that ends it: a completed run's steers start the next run, a cancelled or failed run's are dropped", async () => {
  for (const end of ["run.completed", "cancel", "run.error"] as const) {
    const { runner, session, client } = await startSession();
    const run = await submitAndRun(session, client, runner, "one");
    run.emit({ type: "run.started", requestId: "r1" });
    session.receive(client, commandsFrame({ type: "steer", message: "and then this" }));
    await until(() => client.state!.steers?.[0]?.status === "queued", `the steer queued (${end})`);
    if (end === "cancel") session.receive(client, commandsFrame({ type: "cancel" }));
    else run.emit(end === "run.completed" ? { type: "run.completed", unreadSteers: ["and then this"] } : { type: "run.error", message: "boom" });
    await until(() => client.state!.status !== "running" || client.state!.messages.length === 4, `the run's end (${end})`);
    const ending = client.frames.find((f) => f.type === "delta" && f.operations.some((op) => op.path[0] === "status" && op.value !== "running"));
    assert.ok(ending?.type === "delta" && ending.operations.some((op) => op.path[0] === "steers"), `emptied with the run's end (${end})`);
    assert.deepEqual(listed(client.state), [], end);
    if (end === "run.completed") {
      const next = await runner.nextRun();
      assert.equal(next.body.prompt, "and then this");
      next.emit({ type: "run.completed" });
    }
    await until(() => !session.busy);
    assert.deepEqual(listed(client.state), [], end);
  }
});
