// Commands that act on the run in flight: steer, approve, deny, cancel; and several clients at once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { commandsFrame, recorder, startSession, submitAndRun, settle, until } from "./test-helpers.ts";

test("a steer goes to the runner; when the model sees it, it follows the reply so far and the rest streams into a new message", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner, "fix the bug");
  run.emit(
    { type: "run.started", requestId: "r1" },
    { type: "assistant.delta", text: "Looking" },
    { type: "tool.started", toolName: "Read", toolUseId: "t1" },
    { type: "tool.completed", toolUseId: "t1", output: "code", isError: false },
  );
  await until(() => client.state!.messages[1].toolCalls?.[0].status === "complete");
  session.receive(client, commandsFrame({ type: "steer", message: "also add a test" }));
  await until(() => runner.controls.length === 1);
  assert.deepEqual(runner.controls[0], { requestId: "r1", control: { type: "steer", message: "also add a test" } });
  assert.equal(client.state!.messages.length, 2, "nothing shows until the model has it");

  run.emit({ type: "user.message", text: "also add a test", steer: true }, { type: "assistant.delta", text: "Adding a test" });
  await until(() => client.state!.messages.length === 4 && client.state!.messages[3].content === "Adding a test");
  const [, first, steer, rest] = client.state!.messages;
  assert.deepEqual([first.content, first.status], ["Looking", "complete"]);
  assert.deepEqual([steer.role, steer.content, steer.status, steer.steer], ["user", "also add a test", "complete", true]);
  assert.equal(client.state!.messages[0].steer, undefined, "the prompt is no steer");
  assert.deepEqual([rest.role, rest.status], ["assistant", "running"]);

  run.emit({ type: "tool.started", toolName: "Write", toolUseId: "t2" }, { type: "run.completed" });
  await until(() => client.state!.status === "idle");
  assert.equal(client.state!.messages[3].status, "complete");
  assert.equal(client.state!.messages[3].toolCalls?.[0].id, "t2");
  assert.deepEqual(client.state, session.snapshot().state);
  // The fake runner sent no transcript: the session's own is made from the messages, tool calls
  // and all, each reply's calls answered in the turn after it.
  const shape = (content: unknown) =>
    typeof content === "string" ? content : (content as { type: string; text?: string; id?: string; tool_use_id?: string }[]).map((b) => b.text ?? b.id ?? `result:${b.tool_use_id}`).join("+");
  assert.deepEqual(
    session.transcript.map((m) => [m.role, shape(m.content)]),
    [
      ["user", "fix the bug"],
      ["assistant", "Looking+t1"],
      ["user", "result:t1"],
      ["assistant", "[interrupted]"],
      ["user", "also add a test"],
      ["assistant", "Adding a test+t2"],
      ["user", "result:t2"],
      ["assistant", "[interrupted]"],
    ],
  );
});

test("a steer sent before the runner named the run is delivered once it has", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  session.receive(client, commandsFrame({ type: "steer", message: "first" }, { type: "steer", message: "second" }));
  await settle();
  assert.equal(runner.controls.length, 0);
  run.emit({ type: "run.started", requestId: "r9" });
  await until(() => runner.controls.length === 2);
  assert.deepEqual(runner.controls.map((c) => [c.requestId, c.control]), [
    ["r9", { type: "steer", message: "first" }],
    ["r9", { type: "steer", message: "second" }],
  ]);
  run.emit({ type: "user.message", text: "first\n\nsecond", steer: true }, { type: "run.completed" });
  await until(() => !session.busy);
});

test("a steer with nothing running starts a run, as a submit", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "steer", message: "do this" }));
  const run = await runner.nextRun();
  assert.equal(run.body.prompt, "do this");
  assert.deepEqual(client.state!.messages.map((m) => [m.role, m.content]), [["user", "do this"], ["assistant", ""]]);
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("a steer the runner refuses answers an error frame; the state is as before, the steer gone from its list", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" });
  runner.onControl = () => ({ ok: false, status: 404, message: "no run r1" });
  await settle();
  const before = structuredClone(client.state);
  session.receive(client, commandsFrame({ type: "steer", message: "late" }));
  await until(() => client.errors.length === 1);
  assert.equal(client.errors[0].command, 0);
  assert.match(client.errors[0].message, /steer failed: no run r1/);
  assert.deepEqual(client.state, { ...before, steers: [] });
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
  assert.equal(runner.runs.length, 1, "a refused steer does not become a new run");
});

/** A run (r1) with a steer ("and this") sent to the runner, whose answer waits for `refuse`: the 409
 * a runner gives when the run finished before it took the steer. */
async function steerAwaitingAnswer() {
  const started = await startSession();
  const { runner, session, client } = started;
  const run = await submitAndRun(session, client, runner, "one");
  run.emit({ type: "run.started", requestId: "r1" });
  let answer!: (value: { ok: false; status: number; message: string }) => void;
  runner.onControl = () => new Promise((resolve) => (answer = resolve));
  session.receive(client, commandsFrame({ type: "steer", message: "and this" }));
  await until(() => runner.controls.length === 1);
  const refuse = () => answer({ ok: false, status: 409, message: 'run "r1" has already finished' });
  return { ...started, run, refuse };
}

test("a steer the runner refuses because its run just finished goes on as the next prompt, with no error, whichever comes first", async () => {
  for (const order of ["refusal first", "end first"] as const) {
    const { runner, session, client, run, refuse } = await steerAwaitingAnswer();
    if (order === "refusal first") {
      refuse();
      await settle();
      run.emit({ type: "run.completed" });
    } else {
      run.emit({ type: "run.completed" });
      await until(() => runner.runs.length === 2);
      refuse();
    }
    await until(() => runner.runs.length === 2, `the steer to become the next run (${order})`);
    const next = await runner.nextRun();
    assert.equal(next.body.prompt, "and this", order);
    await settle();
    assert.deepEqual(client.errors, [], order);
    next.emit({ type: "run.completed" });
    await until(() => !session.busy);
  }
});

test("a steer the runner refuses because its run just finished is reported lost when the run ends in an error", async () => {
  const { runner, session, client, run, refuse } = await steerAwaitingAnswer();
  refuse();
  await settle();
  assert.equal(client.errors.length, 0, "no verdict while the run is still ending");
  run.emit({ type: "run.error", message: "the model failed" });
  await until(() => client.errors.length === 1, "the steer reported lost");
  assert.equal(client.errors[0].message, 'steer "and this" was not delivered: the run failed first; the model never read it. Send it again to start a new run with it.');
  assert.equal(client.errors[0].code, "not_delivered");
  await settle();
  assert.equal(client.errors.length, 1, "reported once, though the runner refused it too");
  await until(() => !session.busy);
  assert.equal(runner.runs.length, 1, "the lost steer does not become a new run");
});

test("a steer the run ended without delivering becomes the next run", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner, "one");
  run.emit({ type: "run.started", requestId: "r1" });
  session.receive(client, commandsFrame({ type: "steer", message: "and then this" }));
  await until(() => runner.controls.length === 1);
  // The runner names it too: it goes on once.
  run.emit({ type: "assistant.delta", text: "done" }, { type: "run.completed", unreadSteers: ["and then this"] });
  const next = await runner.nextRun();
  assert.equal(next.body.prompt, "and then this");
  assert.deepEqual(client.state!.messages.map((m) => [m.role, m.content]), [["user", "one"], ["assistant", "done"], ["user", "and then this"], ["assistant", ""]]);
  next.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("a steer a completed run did not deliver starts no run while the host refuses runs: its sender is told, code stopping", async () => {
  let refusal: string | undefined;
  const { runner, session, client } = await startSession({ refusesRuns: () => refusal });
  const other = recorder();
  session.connect(other);
  const run = await submitAndRun(session, client, runner, "one");
  run.emit({ type: "run.started", requestId: "r1" });
  session.receive(client, commandsFrame({ type: "steer", message: "and then this" }));
  await until(() => runner.controls.length === 1);
  refusal = "the server is stopping: no new run starts now; send it again once the server is back";
  run.emit({ type: "assistant.delta", text: "done" }, { type: "run.completed" });
  await until(() => client.errors.length === 1 && !session.busy);
  assert.deepEqual(
    [client.errors[0].code, client.errors[0].message],
    ["stopping", 'steer "and then this" was not delivered: the run ended before the model read it, and the server is stopping: no new run starts now; send it again once the server is back'],
  );
  assert.deepEqual(other.errors, [], "only the client that sent it hears of it");
  await settle();
  assert.equal(runner.runs.length, 1, "no run started");
  assert.deepEqual(client.state!.messages.map((m) => [m.role, m.content, m.status]), [["user", "one", "complete"], ["assistant", "done", "complete"]]);
  assert.equal(client.state!.status, "idle");
});

test("steers a cancelled run never delivered are reported to whoever sent them, and start no run", async () => {
  const { runner, session, client } = await startSession();
  const other = recorder();
  session.connect(other);
  const run = await submitAndRun(session, client, runner, "one");
  run.emit({ type: "run.started", requestId: "r1" });
  session.receive(client, commandsFrame({ type: "steer", message: "use tabs" }, { type: "steer", message: `${"x".repeat(70)}\nmore` }));
  await until(() => runner.controls.length === 2);
  session.receive(client, commandsFrame({ type: "cancel" }));
  await until(() => client.errors.length === 2);
  assert.deepEqual(
    client.errors.map((e) => [e.code, e.message]),
    [
      ["not_delivered", 'steer "use tabs" was not delivered: the run was cancelled first; the model never read it. Send it again to start a new run with it.'],
      ["not_delivered", `steer "${"x".repeat(60)}…" was not delivered: the run was cancelled first; the model never read it. Send it again to start a new run with it.`],
    ],
  );
  assert.deepEqual(other.errors, [], "only the client that sent them hears of it");
  await settle();
  assert.equal(runner.runs.length, 1, "an undelivered steer does not become a new run");
  assert.equal(client.state!.status, "idle");
});

test("a steer's sender hears it was not delivered before the state says the run ended, so a client that leaves once the run ends still hears it", async () => {
  for (const end of ["cancel", "run.error"] as const) {
    const { runner, session, client } = await startSession();
    const run = await submitAndRun(session, client, runner, "one");
    run.emit({ type: "run.started", requestId: "r1" });
    session.receive(client, commandsFrame({ type: "steer", message: "use tabs" }));
    await until(() => runner.controls.length === 1);
    if (end === "cancel") session.receive(client, commandsFrame({ type: "cancel" }));
    else run.emit({ type: "run.error", message: "the model failed" });
    await until(() => client.errors.length === 1 && !session.busy, end);
    const ended = client.frames.findIndex((f) => f.type === "delta" && f.operations.some((op) => op.type === "set" && op.path.join("/") === "status"  && op.value !== "running"));
    const told = client.frames.findIndex((f) => f.type === "error");
    assert.ok(ended >= 0 && told >= 0 && told < ended, `${end}: the error frame (${told}) comes before the run's end (${ended})`);
  }
});

test("two calls awaiting approval are answered independently: one approved, one denied with a reason", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit(
    { type: "run.started", requestId: "r1" },
    { type: "tool.started", toolName: "Bash", toolUseId: "t1", input: { command: "rm a" } },
    { type: "tool.started", toolName: "Bash", toolUseId: "t2", input: { command: "rm b" } },
    { type: "approval.requested", toolUseId: "t1", toolName: "Bash", description: "rm a" },
    { type: "approval.requested", toolUseId: "t2", toolName: "Bash", description: "rm b" },
  );
  await until(() => client.state!.pendingApprovals?.length === 2);
  assert.equal(client.state!.status, "awaiting-approval");
  assert.deepEqual(client.state!.pendingApprovals, [
    { toolCallId: "t1", toolName: "Bash", description: "rm a" },
    { toolCallId: "t2", toolName: "Bash", description: "rm b" },
  ]);
  assert.deepEqual(client.state!.messages[1].toolCalls!.map((c) => c.status), ["awaiting-approval", "awaiting-approval"]);

  // A client that connects now sees the same pending approvals.
  const late = recorder();
  session.connect(late);
  assert.deepEqual(late.state!.pendingApprovals, client.state!.pendingApprovals);

  session.receive(
    client,
    commandsFrame(
      { type: "approve", toolCallId: "t1" },
      { type: "deny", toolCallId: "t2", reason: "keep b" },
      { type: "approve", toolCallId: "nope" },
      { type: "approve", toolCallId: "t1" },
    ),
  );
  assert.deepEqual(client.errors.map((e) => [e.command, e.code]), [[2, "not_found"], [3, "bad_command"]]);
  assert.match(client.errors[0].message, /approve: no tool call "nope" is waiting for approval/);
  assert.match(client.errors[1].message, /already answered/);
  await until(() => runner.controls.length === 2);
  assert.deepEqual(runner.controls.map((c) => c.control), [
    { type: "approve", toolUseId: "t1" },
    { type: "deny", toolUseId: "t2", reason: "keep b" },
  ]);

  run.emit({ type: "approval.resolved", toolUseId: "t1", behavior: "allow" });
  await until(() => client.state!.pendingApprovals?.length === 1);
  assert.equal(client.state!.status, "awaiting-approval", "still waiting for the other");
  assert.equal(client.state!.messages[1].toolCalls![0].status, "running");
  run.emit(
    { type: "approval.resolved", toolUseId: "t2", behavior: "deny", reason: "keep b" },
    { type: "tool.completed", toolUseId: "t2", output: "denied: keep b", isError: true },
    { type: "tool.completed", toolUseId: "t1", output: "", isError: false },
  );
  await until(() => client.state!.messages[1].toolCalls![0].status === "complete");
  assert.equal(client.state!.status, "running");
  assert.deepEqual(client.state!.pendingApprovals, []);
  const denied = client.state!.messages[1].toolCalls![1];
  assert.deepEqual([denied.status, denied.output], ["denied", "denied: keep b"]);
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
  assert.deepEqual(late.state, client.state);
});

test("an approval request for a call not seen yet adds it; the run ending clears what is pending", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "approval.requested", toolUseId: "t9", toolName: "Write", description: "write x", input: { file_path: "x" } });
  await until(() => client.state!.status === "awaiting-approval");
  assert.deepEqual(client.state!.messages[1].toolCalls, [{ id: "t9", name: "Write", status: "awaiting-approval", input: { file_path: "x" }, textOffset: 0 }]);
  session.receive(client, commandsFrame({ type: "cancel" }));
  assert.equal(client.state!.status, "idle");
  assert.deepEqual(client.state!.pendingApprovals, []);
  assert.equal(client.state!.messages[1].toolCalls![0].status, "error");
  session.receive(client, commandsFrame({ type: "approve", toolCallId: "t9" }));
  assert.equal(client.errors.at(-1)?.code, "not_found");
});

test("an approval the runner no longer knows answers an error frame, and can be tried again", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "approval.requested", toolUseId: "t1", toolName: "Bash", description: "ls" });
  await until(() => client.state!.status === "awaiting-approval");
  runner.onControl = () => ({ ok: false, message: "cannot reach the runner" });
  session.receive(client, commandsFrame({ type: "approve", toolCallId: "t1" }));
  await until(() => client.errors.length === 1);
  assert.match(client.errors[0].message, /approve failed: cannot reach the runner/);
  runner.onControl = undefined;
  session.receive(client, commandsFrame({ type: "approve", toolCallId: "t1" }));
  await until(() => runner.controls.length === 2);
  assert.equal(client.errors.length, 1);
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("cancel stops the run in the runner too: its stream is aborted", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "x" });
  await until(() => client.state!.messages[1].content === "x");
  session.receive(client, commandsFrame({ type: "cancel" }));
  await run.closed;
  assert.equal(run.cancelled, true);
});

test("what a cancelled run used until it stopped counts in the session's usage", async () => {
  const { runner, session, client } = await startSession();
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", usage: { inputTokens: 10, outputTokens: 5 } });
  await until(() => !session.busy);
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r2" }, { type: "assistant.delta", text: "x" });
  await until(() => client.state!.messages[3].content === "x");
  session.receive(client, commandsFrame({ type: "cancel" }));
  await run.closed;
  assert.equal(client.state!.status, "idle");
  run.emit({ type: "run.error", message: "cancelled", usage: { inputTokens: 7, outputTokens: 3 } });
  assert.deepEqual(client.state!.usage, { inputTokens: 17, outputTokens: 8 });
  assert.equal(client.state!.messages[3].status, "cancelled", "the late event changes the usage only");
});

test("a cancelled first run's backend session is the one the next prompt resumes, unless a later run has set another", async () => {
  const { runner, session, client } = await startSession();
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "x" });
  await until(() => client.state!.messages[1].content === "x");
  session.receive(client, commandsFrame({ type: "cancel" }));
  await first.closed;
  first.emit({ type: "run.error", message: "cancelled", sessionId: "cc-1" });
  assert.equal(client.state!.sessionId, "cc-1");
  const second = await submitAndRun(session, client, runner);
  assert.equal(second.body.resumeSessionId, "cc-1", "the next prompt continues the cancelled run's conversation");

  second.emit({ type: "run.started", requestId: "r2" }, { type: "run.completed", sessionId: "cc-2" });
  await until(() => !session.busy);
  first.emit({ type: "run.error", message: "cancelled", sessionId: "cc-stale" });
  assert.equal(client.state!.sessionId, "cc-2", "an older run's late end does not undo a later run's session");
});

test("a prompt sent right after a cancel waits for the cancelled run's end, and continues the backend session it started", async () => {
  const { runner, session, client } = await startSession();
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "x" });
  await until(() => client.state!.messages[1].content === "x");
  session.receive(client, commandsFrame({ type: "cancel" }, { type: "submit", prompt: "next" }));
  const next = runner.nextRun();
  const early = await Promise.race([next.then(() => "sent"), settle().then(() => "waiting")]);
  assert.equal(early, "waiting", "the query waits for the cancelled run's last event");
  first.emit({ type: "run.error", message: "cancelled", sessionId: "cc-1" });
  assert.equal((await next).body.resumeSessionId, "cc-1");
});

test("a failed run's backend session is kept for the next prompt", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner);
  run.emit({ type: "run.started", requestId: "r1" }, { type: "run.error", message: "the model failed", sessionId: "cc-1" });
  await until(() => !session.busy);
  assert.equal(client.state!.sessionId, "cc-1");
});

test("clients issuing commands during a run all end with the session's state", async () => {
  const { runner, session, client } = await startSession();
  const other = recorder();
  session.connect(other);
  session.receive(other, commandsFrame({ type: "configure", config: { model: "m1" } }));
  const run = await submitAndRun(session, client, runner, "go");
  run.emit({ type: "run.started", requestId: "r1" }, { type: "assistant.delta", text: "a" });
  session.receive(other, commandsFrame({ type: "steer", message: "faster" }));
  session.receive(client, commandsFrame({ type: "configure", config: { effort: "high" } }));
  run.emit({ type: "tool.started", toolName: "Bash", toolUseId: "t1" }, { type: "approval.requested", toolUseId: "t1", toolName: "Bash", description: "d" });
  await until(() => other.state!.status === "awaiting-approval");
  session.receive(other, commandsFrame({ type: "approve", toolCallId: "t1" }));
  run.emit({ type: "approval.resolved", toolUseId: "t1", behavior: "allow" }, { type: "user.message", text: "faster", steer: true }, { type: "assistant.delta", text: "b" });
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
  const final = session.snapshot();
  for (const c of [client, other]) {
    assert.deepEqual(c.state, final.state);
    assert.equal(c.seq, final.seq);
  }
  assert.deepEqual(final.state.config, { model: "m1", effort: "high" });
  assert.equal(final.state.messages.length, 4);
});

test("a setting the runner can no longer take because its run just ended is kept for the next run, with no error; other failures are told", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner, "one");
  run.emit({ type: "run.started", requestId: "r1" });
  runner.onControl = async () => ({ ok: false, status: 409, message: 'run "r1" has already finished' });
  session.receive(client, commandsFrame({ type: "configure", config: { model: "m2" } }));
  await until(() => runner.controls.length === 1);
  await settle();
  assert.equal(client.errors.length, 0);
  assert.equal(client.state!.config?.model, "m2");
  runner.onControl = async () => ({ ok: false, status: 500, message: "the runner broke" });
  session.receive(client, commandsFrame({ type: "configure", config: { effort: "high" } }));
  await until(() => client.errors.length === 1);
  assert.match(client.errors[0].message, /^configure failed for the run in progress: the runner broke/);
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("the conversation's totals a run's end reports go with the next query, a cancelled run's late end's too, never an older run's over a later one's", async () => {
  const { runner, session, client } = await startSession();
  const spent = (calls: number, wallMs: number) => ({ usage: { inputTokens: 10 * calls, outputTokens: calls, costUsd: 0.01 * calls }, calls, apiMs: 100 * calls, wallMs });
  const first = await submitAndRun(session, client, runner);
  assert.equal(first.body.spentBefore, undefined, "nothing spent yet");
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", spent: spent(1, 1000) });
  await until(() => !session.busy);

  const second = await submitAndRun(session, client, runner);
  assert.deepEqual(second.body.spentBefore, spent(1, 1000));
  second.emit({ type: "run.started", requestId: "r2" }, { type: "assistant.delta", text: "x" });
  await until(() => client.state!.messages[3].content === "x");
  session.receive(client, commandsFrame({ type: "cancel" }));
  await second.closed;
  second.emit({ type: "run.error", message: "cancelled", spent: spent(2, 2000) });
  const third = await submitAndRun(session, client, runner);
  assert.deepEqual(third.body.spentBefore, spent(2, 2000), "the cancelled run's model call counts");

  third.emit({ type: "run.started", requestId: "r3" }, { type: "run.completed", spent: spent(3, 3000) });
  await until(() => !session.busy);
  second.emit({ type: "run.error", message: "cancelled", spent: spent(2, 2000) });
  const fourth = await submitAndRun(session, client, runner);
  assert.deepEqual(fourth.body.spentBefore, spent(3, 3000), "an older run's late end does not take the totals back");
});

test("a prompt sent while a cancelled run winds down goes with the totals its late end says, not those from before it", async () => {
  const { runner, session, client } = await startSession();
  const spent = (calls: number) => ({ usage: { inputTokens: 10 * calls, outputTokens: calls, costUsd: 0.01 * calls }, calls, apiMs: 100 * calls, wallMs: 1000 * calls });
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", spent: spent(1) });
  await until(() => !session.busy);
  const cancelled = await submitAndRun(session, client, runner);
  cancelled.emit({ type: "run.started", requestId: "r2" }, { type: "assistant.delta", text: "x" });
  await until(() => client.state!.messages[3]?.content === "x");
  session.receive(client, commandsFrame({ type: "cancel" }, { type: "submit", prompt: "next" }));
  await cancelled.closed;
  // The next query waits for the cancelled run's end, which says what its model calls used.
  cancelled.emit({ type: "run.error", message: "cancelled", spent: spent(3) });
  const next = await runner.nextRun();
  assert.deepEqual(next.body.spentBefore, spent(3), "the cancelled run's calls count in what the next run goes on from");
});

test("totals a runner would refuse (tokens below zero) are not sent: the next run still goes", async () => {
  const { runner, session, client } = await startSession();
  const first = await submitAndRun(session, client, runner);
  first.emit({ type: "run.started", requestId: "r1" }, { type: "run.completed", spent: { usage: { inputTokens: -5, outputTokens: 1 }, calls: 1, apiMs: 10, wallMs: 20 } });
  await until(() => !session.busy);
  const second = await submitAndRun(session, client, runner);
  assert.equal(second.body.spentBefore, undefined);
});

test("of two modes chosen as the run ends, the last one chosen holds, whichever the run still took; a mode the run changes to on its own holds too", async () => {
  const { runner, session, client } = await startSession();
  const run = await submitAndRun(session, client, runner, "one");
  run.emit({ type: "run.started", requestId: "r1" });
  // The run takes acceptEdits and says so; fullAuto reaches it only after it has ended.
  let taken = 0;
  runner.onControl = async () => (taken++ === 0 ? { ok: true as const, value: undefined } : { ok: false as const, status: 409, message: 'run "r1" has already finished' });
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "acceptEdits" } }, { type: "configure", config: { permissionMode: "fullAuto" } }));
  await until(() => runner.controls.length === 2);
  run.emit({ type: "mode.changed", permissionMode: "acceptEdits" }, { type: "run.completed" });
  await until(() => !session.busy);
  assert.equal(client.state!.config?.permissionMode, "fullAuto");
  assert.equal(client.errors.length, 0);

  // A plan approved with "accept edits": the run first leaves plan mode for the default mode, then
  // takes the mode sent with the answer; the session ends in the mode sent.
  const second = await submitAndRun(session, client, runner, "two");
  second.emit({ type: "run.started", requestId: "r2" });
  runner.onControl = async () => ({ ok: true as const, value: undefined });
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "acceptEdits" } }));
  await until(() => runner.controls.length === 3);
  second.emit({ type: "mode.changed", permissionMode: "default" });
  await settle();
  assert.equal(client.state!.config?.permissionMode, "acceptEdits");
  // Once the run has taken what was sent, a change of its own (a later plan approved) is the session's too.
  second.emit({ type: "mode.changed", permissionMode: "acceptEdits" }, { type: "mode.changed", permissionMode: "default" }, { type: "run.completed" });
  await until(() => !session.busy);
  assert.equal(client.state!.config?.permissionMode, "default");
  assert.deepEqual(client.state, session.snapshot().state);
});

test("a mode the run is not told to change to (the same one, sent with another setting), or one the runner refuses, leaves the run's own mode changes the session's", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "default" } }));
  const run = await submitAndRun(session, client, runner, "plan it");
  run.emit({ type: "run.started", requestId: "r1" });
  runner.onControl = async () => ({ ok: true as const, value: undefined });
  // A client that sends its whole configuration: only maxTurns is new; the run stays in its mode and says nothing.
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "default", maxTurns: 5 } }));
  await until(() => runner.controls.length === 1);
  // The run's plan is approved with "auto-accept edits".
  run.emit({ type: "mode.changed", permissionMode: "acceptEdits" });
  await settle();
  assert.equal(client.state!.config?.permissionMode, "acceptEdits");

  // bypass permissions, which the runner refuses (its settings turn it off): a later change of the run's own holds.
  runner.onControl = async () => ({ ok: false as const, status: 400, message: "bypassPermissions is turned off by the settings" });
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "fullAuto" } }));
  await until(() => client.errors.length === 1);
  run.emit({ type: "mode.changed", permissionMode: "default" }, { type: "run.completed" });
  await until(() => !session.busy);
  assert.equal(client.state!.config?.permissionMode, "default");
  assert.deepEqual(client.state, session.snapshot().state);
});

test("a mode the run takes in but then refuses (its settings forbid bypass) leaves the state saying the mode the run stays in, and its own changes count again", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "acceptEdits" } }));
  const run = await submitAndRun(session, client, runner, "go");
  run.emit({ type: "run.started", requestId: "r1" });
  runner.onControl = async () => ({ ok: true as const, value: undefined });
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "fullAuto" } }));
  await until(() => runner.controls.length === 1);
  assert.equal(client.state!.config?.permissionMode, "fullAuto");
  run.emit({ type: "mode.changed", permissionMode: "acceptEdits", refused: "bypassPermissions" });
  await settle();
  assert.equal(client.state!.config?.permissionMode, "acceptEdits", "not the refused fullAuto");
  // The refusal answered what was sent: the run's own change (a plan left) is the session's again.
  run.emit({ type: "mode.changed", permissionMode: "default" }, { type: "run.completed" });
  await until(() => !session.busy);
  assert.equal(client.state!.config?.permissionMode, "default");

  // Refused at a run's start (the query asked for it): the state says the mode the run is in.
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "fullAuto" } }));
  const second = await submitAndRun(session, client, runner, "again");
  second.emit({ type: "run.started", requestId: "r2" }, { type: "mode.changed", permissionMode: "default", refused: "bypassPermissions" });
  await settle();
  assert.equal(client.state!.config?.permissionMode, "default");
  // A refusal of an earlier choice while a later one is on its way changes nothing.
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "acceptEdits" } }));
  await until(() => runner.controls.length === 2);
  second.emit({ type: "mode.changed", permissionMode: "default", refused: "bypassPermissions" }, { type: "run.completed" });
  await until(() => !session.busy);
  assert.equal(client.state!.config?.permissionMode, "acceptEdits");
  assert.deepEqual(client.state, session.snapshot().state);
});

test("a mode refused while the run is in plan mode, which the configuration cannot name, leaves the configuration saying what it did before that mode was chosen, or nothing if it said none", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "acceptEdits" } }));
  const run = await submitAndRun(session, client, runner, "plan it");
  run.emit({ type: "run.started", requestId: "r1" }, { type: "mode.changed", permissionMode: "plan" });
  runner.onControl = async () => ({ ok: true as const, value: undefined });
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "fullAuto" } }));
  await until(() => runner.controls.length === 1);
  run.emit({ type: "mode.changed", permissionMode: "plan", refused: "bypassPermissions" });
  await settle();
  assert.equal(client.state!.config?.permissionMode, "acceptEdits", "not the refused fullAuto");
  // The refusal answered what was sent: the plan left is the session's again.
  run.emit({ type: "mode.changed", permissionMode: "default" });
  await settle();
  assert.equal(client.state!.config?.permissionMode, "default");

  // A refusal of an earlier choice while a later one is on its way changes nothing.
  run.emit({ type: "mode.changed", permissionMode: "plan" });
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "fullAuto" } }));
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "acceptEdits" } }));
  await until(() => runner.controls.length === 3);
  run.emit({ type: "mode.changed", permissionMode: "plan", refused: "bypassPermissions" });
  await settle();
  assert.equal(client.state!.config?.permissionMode, "acceptEdits");
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
  assert.equal(client.state!.config?.permissionMode, "acceptEdits");
  assert.deepEqual(client.state, session.snapshot().state);

  // No mode configured before: none is said after, and the rest of the configuration stays.
  const fresh = await startSession();
  fresh.session.receive(fresh.client, commandsFrame({ type: "configure", config: { maxTurns: 3 } }));
  const planning = await submitAndRun(fresh.session, fresh.client, fresh.runner, "plan it");
  planning.emit({ type: "run.started", requestId: "r2" }, { type: "mode.changed", permissionMode: "plan" });
  fresh.runner.onControl = async () => ({ ok: true as const, value: undefined });
  fresh.session.receive(fresh.client, commandsFrame({ type: "configure", config: { permissionMode: "fullAuto" } }));
  await until(() => fresh.runner.controls.length === 1);
  planning.emit({ type: "mode.changed", permissionMode: "plan", refused: "bypassPermissions" }, { type: "run.completed" });
  await until(() => !fresh.session.busy);
  assert.deepEqual(fresh.client.state!.config, { maxTurns: 3 });
  assert.deepEqual(fresh.client.state, fresh.session.snapshot().state);
});

test("a run that refuses at its start the bypass its query asked for sets the mode it is in, also when the configuration said fullAuto before the run", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "fullAuto" } }));
  const run = await submitAndRun(session, client, runner, "go");
  assert.equal(run.body.permissionMode, "bypassPermissions", "the query asks for it");
  run.emit({ type: "run.started", requestId: "r1" }, { type: "mode.changed", permissionMode: "default", refused: "bypassPermissions" });
  await settle();
  assert.equal(client.state!.config?.permissionMode, "default");
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
  assert.equal(client.state!.config?.permissionMode, "default");
  assert.deepEqual(client.state, session.snapshot().state);
});
