import { test } from "node:test";
import assert from "node:assert/strict";
import { encodeEvent } from "./sse.ts";

function decode(frame: string): { id: string; event: string; data: unknown } {
  const [id, event, data, ...rest] = frame.split("\n");
  assert.deepEqual(rest, ["", ""], "a frame ends with one blank line");
  return { id: id.replace("id: ", ""), event: event.replace("event: ", ""), data: JSON.parse(data.replace("data: ", "")) };
}

test("every event becomes one frame whose data repeats its type and seq", () => {
  assert.deepEqual(decode(encodeEvent(7, { type: "assistant.delta", text: 'a "b"\nc' })), {
    id: "7",
    event: "assistant.delta",
    data: { type: "assistant.delta", seq: 7, text: 'a "b"\nc' },
  });
  assert.deepEqual(decode(encodeEvent(2, { type: "tool.completed", toolUseId: "t", output: "line1\nline2", isError: true })).data, {
    type: "tool.completed",
    seq: 2,
    toolUseId: "t",
    output: "line1\nline2",
    isError: true,
  });
});

test("sub-agent fields on a text delta are kept", () => {
  assert.deepEqual(decode(encodeEvent(3, { type: "assistant.delta", text: "x", agentId: "a1", parentToolUseId: "tu9" })).data, {
    type: "assistant.delta",
    seq: 3,
    text: "x",
    agentId: "a1",
    parentToolUseId: "tu9",
  });
});

test("a thinking delta is framed as a text delta is, its sub-agent fields kept", () => {
  assert.deepEqual(decode(encodeEvent(4, { type: "assistant.thinking", text: 'so "x"\n' })), {
    id: "4",
    event: "assistant.thinking",
    data: { type: "assistant.thinking", seq: 4, text: 'so "x"\n' },
  });
  assert.deepEqual(decode(encodeEvent(5, { type: "assistant.thinking", text: "y", agentId: "a1", parentToolUseId: "tu9" })).data, {
    type: "assistant.thinking",
    seq: 5,
    text: "y",
    agentId: "a1",
    parentToolUseId: "tu9",
  });
});
