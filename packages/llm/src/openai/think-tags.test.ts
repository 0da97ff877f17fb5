import assert from "node:assert/strict";
import { test } from "node:test";
import { createThinkTags, flushContent, splitContent } from "./think-tags.ts";

function split(pieces: string[]): { thinking: string; text: string } {
  const tags = createThinkTags();
  const all = { thinking: "", text: "" };
  for (const piece of [...pieces.map((p) => splitContent(tags, p)), flushContent(tags)]) {
    all.thinking += piece.thinking;
    all.text += piece.text;
  }
  return all;
}

test("a leading <think> block is thinking, cut anywhere; the answer after it loses its leading blank lines", () => {
  const whole = "  <think>\n\nstep one\nstep two\n</think>\n\nAnswer <b>here</b>.";
  for (let cut = 0; cut <= whole.length; cut++) {
    assert.deepEqual(split([whole.slice(0, cut), whole.slice(cut)]), { thinking: "step one\nstep two\n", text: "Answer <b>here</b>." }, `cut at ${cut}`);
  }
  assert.deepEqual(split([...whole]), { thinking: "step one\nstep two\n", text: "Answer <b>here</b>." }, "one character at a time");
});

test("a block never closed (the reply was cut off) is all thinking; < in the thinking that is not the closing tag stays", () => {
  assert.deepEqual(split(["<think>a < b </thi", "s"]), { thinking: "a < b </this", text: "" });
  assert.deepEqual(split(["<think>still going </thi"]), { thinking: "still going </thi", text: "" });
});

test("content that does not start with <think> passes through whole, blanks and all", () => {
  assert.deepEqual(split(["\n", "Hi <think>x</think>"]), { thinking: "", text: "\nHi <think>x</think>" });
  assert.deepEqual(split(["<thi"]), { thinking: "", text: "<thi" });
  assert.deepEqual(split(["  "]), { thinking: "", text: "  " });
});
