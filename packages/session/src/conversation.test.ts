import { test } from "node:test";
import assert from "node:assert/strict";
import type { HarnessMessage } from "@harness/protocol";
import { copyConversation, rewindPoint } from "./conversation.ts";
import type { Conversation } from "./ports.ts";

const msg = (id: string, role: "user" | "assistant", content: string, status: HarnessMessage["status"] = "complete"): HarnessMessage => ({ id, role, content, status });

/** Two runs; the second was steered once. */
function sample(): Conversation {
  return {
    state: {
      status: "idle",
      config: { model: "m" },
      usage: { inputTokens: 1, outputTokens: 1 },
      messages: [msg("u1", "user", "one"), msg("a1", "assistant", "first"), msg("u2", "user", "two"), msg("a2", "assistant", "part"), msg("s", "user", "steer"), msg("a3", "assistant", "rest")],
    },
    transcript: [
      { role: "user", content: "one" },
      { role: "assistant", content: "first" },
      { role: "user", content: "two" },
      { role: "assistant", content: "part" },
      { role: "user", content: "steer" },
      { role: "assistant", content: "rest" },
    ],
    marks: { u1: 0, u2: 2 },
  };
}

test("a copy of everything is idle, keeps the config, and drops what belongs to the original only", () => {
  const copy = copyConversation(sample());
  assert.ok(copy.ok);
  assert.equal(copy.value.state.messages.length, 6);
  assert.deepEqual(copy.value.state.config, { model: "m" });
  assert.equal(copy.value.state.usage, undefined);
  assert.equal(copy.value.transcript.length, 6);
  assert.deepEqual(copy.value.marks, { u1: 0, u2: 2 });
});

test("a copy up to a completed reply that ended a run cuts the transcript at that run's end", () => {
  const copy = copyConversation(sample(), "a1");
  assert.ok(copy.ok);
  assert.deepEqual(copy.value.state.messages.map((m) => m.id), ["u1", "a1"]);
  assert.deepEqual(copy.value.transcript.map((m) => m.content), ["one", "first"]);
  assert.deepEqual(copy.value.marks, { u1: 0 });
});

test("a copy at a prompt holds what came before it, for the model too, and hands the prompt back", () => {
  const copy = copyConversation(sample(), "u2");
  assert.ok(copy.ok);
  assert.deepEqual(copy.value.state.messages.map((m) => m.id), ["u1", "a1"]);
  assert.deepEqual(copy.value.transcript, [{ role: "user", content: "one" }, { role: "assistant", content: "first" }]);
  assert.deepEqual(copy.value.marks, { u1: 0 });
  assert.equal(copy.value.prompt, "two");
  assert.equal(copy.value.filesBefore, "u2", "its files are those from before that prompt's run");
  const first = copyConversation(sample(), "u1");
  assert.ok(first.ok);
  assert.deepEqual([first.value.state.messages, first.value.transcript, first.value.prompt], [[], [], "one"]);
});

test("a copy's files are those from when its last reply ended: before the next prompt's run, or as they are now", () => {
  const atReply = copyConversation(sample(), "a1");
  assert.ok(atReply.ok);
  assert.equal(atReply.value.filesBefore, "u2");
  assert.equal(atReply.value.prompt, undefined);
  for (const whole of [copyConversation(sample()), copyConversation(sample(), "a3")]) {
    assert.ok(whole.ok);
    assert.equal(whole.value.filesBefore, undefined);
  }
});

test("a copy cannot end inside a run, at an unfinished reply, or at an unknown message", () => {
  for (const [id, code] of [["a2", "bad_command"], ["s", "bad_command"], ["zz", "not_found"]] as const) {
    const copy = copyConversation(sample(), id);
    assert.ok(!copy.ok, id);
    assert.equal(copy.code, code, id);
  }
  const failed = sample();
  failed.state.messages[5] = msg("a3", "assistant", "rest", "error");
  assert.ok(!copyConversation(failed, "a3").ok);
});

test("a copy of a session with a run in flight leaves that run out", () => {
  const running = sample();
  running.state.status = "running";
  running.state.messages[5] = msg("a3", "assistant", "rest", "running");
  running.transcript = running.transcript.slice(0, 2);
  const copy = copyConversation(running);
  assert.ok(copy.ok);
  assert.deepEqual(copy.value.state.messages.map((m) => m.id), ["u1", "a1"]);
  assert.equal(copy.value.transcript.length, 2);
  assert.equal(copy.value.filesBefore, "u2", "nor what that run has changed in the files");
});

test("rewind points: prompts that started a run only", () => {
  const c = sample();
  assert.deepEqual(rewindPoint(c, "u2"), { ok: true, value: { index: 2, transcriptLength: 2 } });
  assert.equal(rewindPoint(c, "a1").ok, false);
  assert.equal(rewindPoint(c, "s").ok, false);
  assert.equal(rewindPoint(c, "none").ok, false);
});
