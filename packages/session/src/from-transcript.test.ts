import assert from "node:assert/strict";
import { test } from "node:test";
import type { TranscriptMessage } from "@harness/protocol";
import { conversationFromTranscript } from "./from-transcript.ts";

const counter = () => {
  let n = 0;
  return () => `m${++n}`;
};

const first: TranscriptMessage[] = [
  { role: "user", content: "List the files" },
  { role: "assistant", content: [{ type: "text", text: "Looking." }, { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "a.txt" }] }] },
  { role: "assistant", content: [{ type: "text", text: "One file: a.txt" }] },
];

test("a transcript becomes the messages a chat shows: prompts, replies with their tool calls and outputs, and rewind marks", () => {
  const made = conversationFromTranscript(first, undefined, counter());
  assert.deepEqual(made.state, {
    status: "idle",
    messages: [
      { id: "m1", role: "user", content: "List the files", status: "complete" },
      {
        id: "m2",
        role: "assistant",
        content: "Looking.\n\nOne file: a.txt",
        status: "complete",
        toolCalls: [{ id: "toolu_1", name: "Bash", status: "complete", textOffset: 8, input: { command: "ls" }, output: "a.txt" }],
      },
    ],
  });
  assert.deepEqual(made.marks, { m1: 0 });
  assert.deepEqual(made.transcript, first);
});

test("a transcript that goes on from a session's keeps that session's messages and marks, and adds the rest; another starts afresh", () => {
  const base = conversationFromTranscript(first, undefined, counter());
  const more: TranscriptMessage[] = [...first, { role: "user", content: [{ type: "text", text: "And now?" }] }, { role: "assistant", content: [{ type: "tool_use", id: "toolu_2", name: "Read", input: {} }] }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_2", content: "no", is_error: true }] }];
  const next = () => "n1";
  const extended = conversationFromTranscript(more, { ...base, state: { ...base.state, status: "error", error: "died", config: { model: "m" } } }, next);
  assert.deepEqual(extended.state.messages.map((m) => m.id), ["m1", "m2", "n1", "n1"]);
  assert.deepEqual(extended.marks, { m1: 0, n1: 4 });
  assert.equal(extended.state.status, "idle");
  assert.equal(extended.state.error, undefined);
  assert.deepEqual(extended.state.config, { model: "m" });
  assert.deepEqual(extended.state.messages[3].toolCalls, [{ id: "toolu_2", name: "Read", status: "error", textOffset: 0, input: {}, output: "no" }]);
  const other = conversationFromTranscript([{ role: "user", content: "Else" }], base, counter());
  assert.deepEqual(other.state.messages, [{ id: "m1", role: "user", content: "Else", status: "complete" }]);
});
