// Commands that shape the conversation: configure, resume, rewind; and batches of commands.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { TranscriptMessage } from "@harness/protocol";
import type { FakeRunner } from "./fake-runner.ts";
import type { Conversation } from "./ports.ts";
import { openSession, type HarnessSession } from "./session.ts";
import { createFakeRunner } from "./fake-runner.ts";
import { commandsFrame, crashableStore, recorder, startSession, submitAndRun, settle, until, type Recorder } from "./test-helpers.ts";

/** Runs `prompt` to completion with `reply`; the runner returns the transcript so far plus the turn. */
async function turn(s: { session: HarnessSession; client: Recorder; runner: FakeRunner }, prompt: string, reply: string) {
  const run = await submitAndRun(s.session, s.client, s.runner, prompt);
  const transcript: TranscriptMessage[] = [...(run.body.history ?? []), { role: "user", content: prompt }, { role: "assistant", content: reply }];
  run.emit({ type: "run.started", requestId: `r-${prompt}` }, { type: "assistant.delta", text: reply }, { type: "run.completed", transcript });
  await until(() => !s.session.busy && s.client.state!.status === "idle");
  return run;
}

test("configure merges into the visible config; the next query carries it, fullAuto as bypassPermissions", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "configure", config: { model: "claude-a", maxTurns: 5 } }));
  session.receive(client, commandsFrame({ type: "configure", config: { permissionMode: "fullAuto", effort: "low", systemPrompt: "terse" } }));
  assert.deepEqual(client.state!.config, { model: "claude-a", maxTurns: 5, permissionMode: "fullAuto", effort: "low", systemPrompt: "terse" });
  const seq = client.seq;
  session.receive(client, commandsFrame({ type: "configure", config: { model: "claude-a", systemPrompt: "terse" } }));
  assert.equal(client.seq, seq, "settings sent again as they are commit nothing");
  const run = await submitAndRun(session, client, runner);
  assert.equal(run.body.model, "claude-a");
  assert.equal(run.body.maxTurns, 5);
  assert.equal(run.body.permissionMode, "bypassPermissions");
  assert.equal(run.body.effort, "low");
  assert.equal(run.body.systemPrompt, "terse");
  assert.equal(run.body.interactive, true);

  // While the run is in flight the runner is told too, from its next model call.
  run.emit({ type: "run.started", requestId: "r1" });
  session.receive(client, commandsFrame({ type: "configure", config: { model: "claude-b", permissionMode: "acceptEdits" } }));
  await until(() => runner.controls.length === 1);
  assert.deepEqual(runner.controls[0], { requestId: "r1", control: { type: "configure", config: { model: "claude-b", permissionMode: "acceptEdits" } } });
  assert.equal(client.state!.config?.model, "claude-b");
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("configure with invalid values answers an error frame naming them and changes nothing", async () => {
  const { session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "configure", config: { model: "x" } }));
  const before = structuredClone(client.state);
  session.receive(
    client,
    commandsFrame(
      { type: "configure", config: { maxTurns: 0 } },
      { type: "configure", config: { permissionMode: "yolo" } },
      { type: "configure", config: { colour: "red" } },
      { type: "configure", config: "fast" },
    ),
  );
  assert.deepEqual(client.errors.map((e) => [e.command, e.code]), [[0, "bad_command"], [1, "bad_command"], [2, "bad_command"], [3, "bad_command"]]);
  assert.match(client.errors[0].message, /config\.maxTurns/);
  assert.match(client.errors[1].message, /config\.permissionMode/);
  assert.match(client.errors[2].message, /colour/);
  assert.match(client.errors[3].message, /config/);
  assert.deepEqual(client.state, before);
});

test("a model check that answers later holds up the commands after the configure: a refused model changes nothing, the submit after it runs on the model before", async () => {
  const answer = Promise.withResolvers<string | undefined>();
  const { runner, session, client } = await startSession({ checkModel: (model) => (model === "later" ? answer.promise : undefined) });
  session.receive(client, commandsFrame({ type: "configure", config: { model: "kept" } }));
  session.receive(client, commandsFrame({ type: "configure", config: { model: "later" } }, { type: "submit", prompt: "go" }));
  await settle();
  assert.equal(session.busy, false, "the submit waits for the check");
  answer.resolve("the settings leave it out");
  const run = await runner.nextRun();
  assert.equal(run.body.model, "kept");
  assert.deepEqual(client.errors.map((e) => [e.command, e.message]), [[0, 'configure: model "later" cannot be used here: the settings leave it out']]);
  assert.equal(client.state!.config?.model, "kept");
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("commands of one frame apply in order: configure then submit uses the new config; a bad one in between is skipped", async () => {
  const { runner, session, client } = await startSession();
  session.receive(client, commandsFrame({ type: "configure", config: { model: "fresh" } }, { type: "approve" }, { type: "submit", prompt: "go" }));
  assert.deepEqual(client.errors.map((e) => [e.command, e.code]), [[1, "bad_command"]]);
  const run = await runner.nextRun();
  assert.equal(run.body.model, "fresh");
  run.emit({ type: "run.completed" });
  await until(() => !session.busy);
});

test("rewind dryRun shows what would be restored and changes nothing else", async () => {
  const s = await startSession();
  await turn(s, "one", "first");
  await turn(s, "two", "second");
  s.runner.onRewind = (request) => ({ ok: true, value: { dryRun: request.dryRun, files: [{ path: "a.txt", action: "restore", linesAdded: 1, linesRemoved: 2 }] } });
  const target = s.client.state!.messages[2].id;
  const messages = structuredClone(s.client.state!.messages);
  const transcript = [...s.session.transcript];
  s.session.receive(s.client, commandsFrame({ type: "rewind", messageId: target, dryRun: true }));
  await until(() => s.client.state!.rewindPreview !== undefined);
  assert.deepEqual(s.runner.rewinds, [{ userMessageId: target, dryRun: true }]);
  assert.deepEqual(s.client.state!.rewindPreview, { messageId: target, files: [{ path: "a.txt", action: "restore", linesAdded: 1, linesRemoved: 2 }] });
  assert.deepEqual(s.client.state!.messages, messages);
  assert.deepEqual(s.session.transcript, transcript);
});

test("a client that sends faster than its commands are answered is told so, and no more is queued", async () => {
  const s = await startSession();
  await turn(s, "one", "first");
  let answer!: () => void;
  s.runner.onRewind = (request) => new Promise((resolve) => (answer = () => resolve({ ok: true, value: { dryRun: request.dryRun, files: [] } })));
  s.session.receive(s.client, commandsFrame({ type: "rewind", messageId: s.client.state!.messages[0].id, dryRun: true }));
  const cancels = commandsFrame(...Array.from({ length: 100 }, () => ({ type: "cancel" as const })));
  for (let i = 0; i < 10; i++) s.session.receive(s.client, cancels);
  assert.equal(s.client.errors.length, 0, "a thousand commands may wait");
  s.session.receive(s.client, cancels);
  assert.deepEqual(
    s.client.errors.map((e) => [e.code, e.message]),
    [["busy", "1000 commands are still waiting to run: this frame was not taken; send it again once they are answered"]],
  );
  answer();
  await until(() => s.client.errors.length === 1001);
  assert.ok(s.client.errors.slice(1).every((e) => e.code === "not_running"));
});

test("rewind cuts the conversation and the transcript back to before the message; the next run continues from there", async () => {
  const s = await startSession();
  const first = await turn(s, "one", "first");
  await turn(s, "two", "second");
  await turn(s, "three", "third");
  const target = s.client.state!.messages[2].id;
  // A frame with the rewind and a submit: the submit waits for the rewind.
  s.session.receive(s.client, commandsFrame({ type: "rewind", messageId: target }, { type: "submit", prompt: "two, again" }));
  const next = await s.runner.nextRun();
  assert.deepEqual(s.runner.rewinds, [{ userMessageId: target, dryRun: false }]);
  assert.deepEqual(next.body.history, [...(first.body.history ?? []), { role: "user", content: "one" }, { role: "assistant", content: "first" }]);
  assert.deepEqual(s.client.state!.messages.map((m) => m.content), ["one", "first", "two, again", ""]);
  next.emit({ type: "run.completed" });
  await until(() => !s.session.busy);
  assert.deepEqual(s.client.state, s.session.snapshot().state);
});

test("runs that end store their transcript and marks, not the whole state: a host that dies after them restores both, and rewinds", async () => {
  const { inner, store, crash } = crashableStore();
  const s = await startSession({ store });
  await turn(s, "one", "first");
  await turn(s, "two", "second");
  await turn(s, "three", "third");
  await until(() => inner.snapshot?.transcript.length === 6);
  assert.ok(inner.snapshot!.seq < s.client.seq, "the state stored is older than the runs: the batches carry it");
  const target = s.client.state!.messages[2].id;
  assert.equal(inner.snapshot!.marks?.[target], 2, "the marks of every run are stored");
  crash();

  const runner = createFakeRunner();
  const restored = await openSession({ runner, store: inner, onError: (e) => assert.fail(String(e)) });
  assert.deepEqual(restored.snapshot().state, s.client.state);
  const client = recorder();
  restored.connect(client);
  restored.receive(client, commandsFrame({ type: "rewind", messageId: target }, { type: "submit", prompt: "two, again" }));
  const next = await runner.nextRun();
  assert.deepEqual(next.body.history, [{ role: "user", content: "one" }, { role: "assistant", content: "first" }]);
  next.emit({ type: "run.completed" });
  await until(() => !restored.busy);
  await s.session.close();
});

test("rewind refuses what it cannot do with an error frame naming it; the state is untouched", async () => {
  const s = await startSession();
  await turn(s, "one", "first");
  const [user, assistant] = s.client.state!.messages;
  const before = structuredClone(s.client.state);
  s.session.receive(
    s.client,
    commandsFrame({ type: "rewind", messageId: "ghost" }, { type: "rewind", messageId: assistant.id }, { type: "rewind", messageId: "" }),
  );
  await settle();
  assert.deepEqual(s.client.errors.map((e) => [e.command, e.code]), [[0, "not_found"], [1, "bad_command"], [2, "bad_command"]]);
  assert.match(s.client.errors[0].message, /ghost/);
  assert.match(s.client.errors[1].message, /assistant message/);

  s.runner.onRewind = () => ({ ok: false, status: 404, message: "no checkpoint" });
  s.session.receive(s.client, commandsFrame({ type: "rewind", messageId: user.id }));
  await until(() => s.client.errors.length === 4);
  assert.equal(s.client.errors[3].code, "not_found");
  assert.deepEqual(s.client.state, before);

  const run = await submitAndRun(s.session, s.client, s.runner, "busy now");
  s.session.receive(s.client, commandsFrame({ type: "rewind", messageId: user.id }));
  assert.equal(s.client.errors.at(-1)?.code, "busy");
  run.emit({ type: "run.completed" });
  await until(() => !s.session.busy);
});

test("a steer message cannot be rewound to: only prompts that started a run", async () => {
  const s = await startSession();
  const run = await submitAndRun(s.session, s.client, s.runner, "go");
  run.emit({ type: "run.started", requestId: "r1" }, { type: "user.message", text: "steer", steer: true }, { type: "run.completed" });
  await until(() => !s.session.busy);
  s.session.receive(s.client, commandsFrame({ type: "rewind", messageId: s.client.state!.messages[2].id }));
  await settle();
  assert.equal(s.client.errors[0].code, "bad_command");
  assert.match(s.client.errors[0].message, /during a run/);
});

function peerOf(conversation: Conversation): (id: string) => Promise<Conversation | undefined> {
  return async (id) => (id === "older" ? structuredClone(conversation) : undefined);
}

test("resume copies another session's conversation into an empty one and goes on from it", async () => {
  const older = await startSession();
  older.session.receive(older.client, commandsFrame({ type: "configure", config: { model: "m-old", permissionMode: "fullAuto" } }));
  await turn(older, "one", "first");
  const copied = older.session.conversation();
  const s = await startSession({ sessionId: "newer", loadPeer: peerOf(copied) });
  s.session.receive(s.client, commandsFrame({ type: "resume", sessionId: "older", prompt: "and now?" }));
  const run = await s.runner.nextRun();
  assert.equal(run.body.prompt, "and now?");
  assert.deepEqual(run.body.history, copied.transcript);
  assert.deepEqual(s.client.state!.messages.map((m) => [m.role, m.content]), [["user", "one"], ["assistant", "first"], ["user", "and now?"], ["assistant", ""]]);
  run.emit({ type: "run.completed" });
  await until(() => !s.session.busy);
  // It goes on with the settings the other session had.
  assert.deepEqual(s.client.state!.config, { model: "m-old", permissionMode: "fullAuto" });
  assert.equal(run.body.model, "m-old");
  // The copy is a conversation of its own: it can be rewound to the copied prompt.
  s.session.receive(s.client, commandsFrame({ type: "rewind", messageId: s.client.state!.messages[0].id, dryRun: true }));
  await until(() => s.runner.rewinds.length === 1);
});

test("resume of this session is a submit; of an unknown session not_found; into a session with messages not_empty", async () => {
  const s = await startSession({ sessionId: "me", loadPeer: async () => undefined });
  s.session.receive(s.client, commandsFrame({ type: "resume", sessionId: "ghost", prompt: "x" }));
  await until(() => s.client.errors.length === 1);
  assert.equal(s.client.errors[0].code, "not_found");
  assert.match(s.client.errors[0].message, /ghost/);
  assert.deepEqual(s.client.state!.messages, []);

  s.session.receive(s.client, commandsFrame({ type: "resume", sessionId: "me", prompt: "hello" }));
  const run = await s.runner.nextRun();
  assert.equal(run.body.prompt, "hello");
  run.emit({ type: "run.completed", sessionId: "backend-7" });
  await until(() => !s.session.busy);

  s.session.receive(s.client, commandsFrame({ type: "resume", sessionId: "other", prompt: "x" }));
  await until(() => s.client.errors.length === 2);
  assert.equal(s.client.errors[1].code, "not_empty");
  assert.equal(s.client.errors[1].message, "resume needs an empty session; fork it instead");

  // The backend's own session id goes with the next query.
  const next = await submitAndRun(s.session, s.client, s.runner, "again");
  assert.equal(next.body.resumeSessionId, "backend-7");
  next.emit({ type: "run.completed" });
  await until(() => !s.session.busy);
});

test("commands wait behind a resume that is loading, whichever client sent them", async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const older = await startSession();
  await turn(older, "one", "first");
  const conversation = older.session.conversation();
  const s = await startSession({ loadPeer: async () => (await gate, conversation) });
  const other = recorder();
  s.session.connect(other);
  s.session.receive(s.client, commandsFrame({ type: "resume", sessionId: "older", prompt: "continue" }));
  s.session.receive(other, commandsFrame({ type: "submit", prompt: "me first?" }));
  await settle();
  assert.equal(s.runner.runs.length, 0);
  release();
  const run = await s.runner.nextRun();
  assert.equal(run.body.prompt, "continue");
  await until(() => other.errors.length === 1);
  assert.equal(other.errors[0].code, "busy", "the submit ran after the resume, into a busy session");
  run.emit({ type: "run.completed" });
  await until(() => !s.session.busy);
});
