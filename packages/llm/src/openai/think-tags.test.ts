import assert from "node:assert/strict";
import { test } from "node:test";
import { createThinkTags, flushContent, splitContent } from "./think-tags.ts";

/** The thinking and text of a reply streamed in `pieces`: text withdrawn becomes thinking. */
function split(pieces: string[]): { thinking: string; text: string } {
  const tags = createThinkTags();
  const all = { thinking: "", text: "" };
  for (const piece of [...pieces.map((p) => splitContent(tags, p)), flushContent(tags)]) {
    if (piece.withdraw) {
      all.thinking += all.text;
      all.text = "";
    }
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
  assert.deepEqual(split(["\n", "Hi <think>x\n</think>"]), { thinking: "", text: "\nHi <think>x\n</think>" });
  assert.deepEqual(split(["<thi"]), { thinking: "", text: "<thi" });
  assert.deepEqual(split(["  "]), { thinking: "", text: "  " });
});

test("thinking the chat template opened, closed by </think> at a line's start, cut anywhere: the text before it is withdrawn as thinking", () => {
  const whole = "Let me see.\nTwo and two.\n</think>\n\nThe answer is 4.";
  for (let cut = 0; cut <= whole.length; cut++) {
    assert.deepEqual(split([whole.slice(0, cut), whole.slice(cut)]), { thinking: "Let me see.\nTwo and two.\n", text: "The answer is 4." }, `cut at ${cut}`);
  }
  assert.deepEqual(split([...whole]), { thinking: "Let me see.\nTwo and two.\n", text: "The answer is 4." }, "one character at a time");
  assert.deepEqual(split(["</think>\n\nNo thoughts."]), { thinking: "", text: "No thoughts." });
});

test("a reply that may yet close unopened thinking streams at once: only a line that could yet be </think>'s waits for the next piece", () => {
  const tags = createThinkTags();
  assert.deepEqual(splitContent(tags, "Hello, "), { thinking: "", text: "Hello, " });
  assert.deepEqual(splitContent(tags, "world.\n"), { thinking: "", text: "world.\n" });
  assert.deepEqual(splitContent(tags, "a <"), { thinking: "", text: "a <" });
  assert.deepEqual(splitContent(tags, "b>\n<"), { thinking: "", text: "b>\n" });
  assert.deepEqual(splitContent(tags, "b"), { thinking: "", text: "<b" });
  assert.deepEqual(splitContent(tags, "\n</think>"), { thinking: "", text: "\n" });
  assert.deepEqual(splitContent(tags, " is a tag"), { thinking: "", text: "</think> is a tag" });
});

test("</think> within a line, after a <think> of the reply's own, or after a tool call is the reply's text", () => {
  assert.deepEqual(split(["Close it with `</think>`.\nDone."]), { thinking: "", text: "Close it with `</think>`.\nDone." });
  assert.deepEqual(split(["An example: <thi", "nk>\nstep\n</think>\n"]), { thinking: "", text: "An example: <think>\nstep\n</think>\n" });
  const tags = createThinkTags();
  assert.deepEqual(splitContent(tags, "Looking.\n"), { thinking: "", text: "Looking.\n" });
  flushContent(tags);
  assert.deepEqual(splitContent(tags, "</think>\nmore"), { thinking: "", text: "</think>\nmore" });
});

test("</think> in a code block, or with more after it on its line, is the reply's text, cut anywhere", () => {
  for (const whole of ["Strip the tag:\n```\n</think>\n```\nDone.", "In a list:\n~~~xml\n  </think>\n~~~\n", "Tags:\n</think> closes the block.\nThat is all."]) {
    for (let cut = 0; cut <= whole.length; cut++) {
      assert.deepEqual(split([whole.slice(0, cut), whole.slice(cut)]), { thinking: "", text: whole }, `${JSON.stringify(whole)} cut at ${cut}`);
    }
    assert.deepEqual(split([...whole]), { thinking: "", text: whole }, `${JSON.stringify(whole)} one character at a time`);
  }
});

test("unopened thinking closes after a code block it holds, and at the reply's end, cut anywhere", () => {
  const whole = "Try:\n```\nx = 1\n```\n</think>\r\n\nIt is 1.";
  for (let cut = 0; cut <= whole.length; cut++) {
    assert.deepEqual(split([whole.slice(0, cut), whole.slice(cut)]), { thinking: "Try:\n```\nx = 1\n```\n", text: "It is 1." }, `cut at ${cut}`);
  }
  assert.deepEqual(split([..."Hmm.\n</think> "]), { thinking: "Hmm.\n", text: "" });
});
