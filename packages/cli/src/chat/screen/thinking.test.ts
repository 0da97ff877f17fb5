import { test } from "node:test";
import assert from "node:assert/strict";
import type { HarnessMessage, HarnessState } from "@harness/protocol";
import { createThinkingShown, thinkingNow } from "./thinking.ts";

const reply = (fields: Partial<HarnessMessage>): HarnessMessage => ({ id: "a1", role: "assistant", content: "", status: "running", ...fields });
const stateOf = (message: HarnessMessage): HarnessState => ({ status: "running", messages: [{ id: "u1", role: "user", content: "hi", status: "complete" }, message] });

test("the model thinks while its reply's thinking is what grew last", () => {
  const thinks = thinkingNow();
  assert.equal(thinks(stateOf(reply({}))), false, "nothing yet");
  assert.equal(thinks(stateOf(reply({ thinking: "Hm" }))), true);
  assert.equal(thinks(stateOf(reply({ thinking: "Hm, yes" }))), true);
  assert.equal(thinks(stateOf(reply({ thinking: "Hm, yes", content: "Yes" }))), false, "text came");
  assert.equal(thinks(stateOf(reply({ thinking: "Hm, yes", content: "Yes", toolCalls: [{ id: "t", name: "Read", status: "running" }] }))), false);
  assert.equal(thinks(stateOf(reply({ thinking: "Hm, yes\n\nNow", content: "Yes", toolCalls: [{ id: "t", name: "Read", status: "complete" }] }))), true, "the next call thinks");
  assert.equal(thinks(stateOf(reply({ thinking: "Hm", status: "complete" }))), false, "the run is over");
});

test("thinking shows once over: folded as how long it took, whole when verbose, a stretch at a time", () => {
  let clock = 0;
  const lines: string[] = [];
  const folded = createThinkingShown({ full: false, dim: (t) => t, line: (t) => lines.push(t), now: () => clock });
  folded.show(reply({ thinking: "Let me" }), false);
  clock = 2_600;
  folded.show(reply({ thinking: "Let me see." }), false);
  assert.deepEqual(lines, [], "nothing while it goes on");
  folded.show(reply({ thinking: "Let me see.", content: "Seen." }), true);
  assert.deepEqual(lines, ["✻ Thought for 3s"]);
  folded.show(reply({ thinking: "Let me see.", content: "Seen. More." }), true);
  assert.equal(lines.length, 1, "shown once");
  folded.show(reply({ id: "a2", thinking: "Old thoughts", content: "Old reply", status: "complete" }), true);
  assert.equal(lines[1], "✻ Thought", "over when first seen: no time said");

  const whole: string[] = [];
  const verbose = createThinkingShown({ full: true, dim: (t) => `<${t}>`, line: (t) => whole.push(t) });
  verbose.show(reply({ thinking: "First.\n\nSecond \x1b[2Jline." }), true);
  assert.deepEqual(whole, ["<✻ Thinking…>\n  <First.>\n\n  <Second [2Jline.>"], "the escape character dropped, as in replies");
  verbose.show(reply({ thinking: "First.\n\nSecond \x1b[2Jline.\n\nAfter the tool." }), true);
  assert.equal(whole[1], "<✻ Thinking…>\n  <After the tool.>");
});

test("verbose is read at each stretch: turned on while the chat runs (Ctrl+O), the next thinking shows whole", () => {
  const lines: string[] = [];
  const shown = { full: false };
  const thinking = createThinkingShown({ get full() { return shown.full; }, dim: (t) => t, line: (t) => lines.push(t) });
  thinking.show(reply({ thinking: "First." }), true);
  shown.full = true;
  thinking.show(reply({ thinking: "First.\n\nSecond.", content: "x" }), true);
  assert.deepEqual(lines, ["✻ Thought", "✻ Thinking…\n  Second."]);
});
