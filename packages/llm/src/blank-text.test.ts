// Requests never carry blank text, which the Messages API refuses (in a message or a tool result).
import assert from "node:assert/strict";
import { test } from "node:test";
import { NO_CONTENT, withoutBlankText } from "./blank-text.ts";
import type { ModelMessage } from "./types.ts";

test("a conversation without blank text is passed on as it is", () => {
  const messages: ModelMessage[] = [
    { role: "user", content: "hi" },
    { role: "assistant", content: [{ type: "text", text: "hello" }] },
  ];
  assert.equal(withoutBlankText(messages), messages);
});

test("blank text blocks are left out of messages and tool results; what would be left empty says so", () => {
  const messages: ModelMessage[] = [
    { role: "user", content: "list the files" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "\n\n" },
        { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } },
      ],
    },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: "", is_error: true },
        { type: "tool_result", tool_use_id: "t2", content: [{ type: "text", text: " " }, { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } }] },
      ],
    },
    { role: "assistant", content: [{ type: "text", text: "  " }] },
    { role: "user", content: " \n" },
  ];
  const before = structuredClone(messages);
  assert.deepEqual(withoutBlankText(messages), [
    messages[0],
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } }] },
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "t1", content: NO_CONTENT, is_error: true },
        { type: "tool_result", tool_use_id: "t2", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } }] },
      ],
    },
    { role: "assistant", content: NO_CONTENT },
    { role: "user", content: NO_CONTENT },
  ]);
  assert.deepEqual(messages, before, "the caller's messages are not changed");
});

test("another provider's reasoning is left out of a request to Anthropic (its signature is not one)", () => {
  const messages: ModelMessage[] = [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "deepseek thought", signature: "openai-compatible:reasoning_content" },
        { type: "thinking", thinking: "claude thought", signature: "sig" },
        { type: "text", text: "hello" },
      ],
    },
  ];
  assert.deepEqual(withoutBlankText(messages)[1], {
    role: "assistant",
    content: [
      { type: "thinking", thinking: "claude thought", signature: "sig" },
      { type: "text", text: "hello" },
    ],
  });
});
