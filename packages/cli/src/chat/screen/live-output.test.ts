// What `harness chat` shows of a call's output while the call still runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bashModePrompt, type HarnessState, type HarnessToolCall } from "@harness/protocol";
import { createChatView } from "./view.ts";
import { createApprovalNumbering } from "../line.ts";

const user = (id: string, content: string) => ({ id, role: "user" as const, content, status: "complete" as const });

function stateWith(prompt: string, call: HarnessToolCall): HarnessState {
  const done = call.status !== "running";
  return {
    status: done ? "idle" : "running",
    messages: [user("u1", prompt), { id: "a1", role: "assistant", content: "", status: done ? "complete" : "running", toolCalls: [call] }],
  };
}

test("at a terminal, a running call's latest output lines are held below the conversation, then give way to its result", () => {
  let stderr = "";
  const held: (readonly string[])[] = [];
  const view = createChatView({ write: () => {} }, { write: (t: string) => (stderr += t) }, { color: false }, createApprovalNumbering(), (lines) => held.push(lines));
  const bash = (status: HarnessToolCall["status"], output?: string): HarnessToolCall => ({ id: "t1", name: "Bash", status, input: { command: "make" }, ...(output !== undefined && { output }) });
  view.typed("build it");
  view.show(stateWith("build it", bash("running")));
  view.show(stateWith("build it", bash("running", "one\ntwo\n")));
  assert.deepEqual(held.at(-1), ["  ⎿  one", "     two"]);
  view.show(stateWith("build it", bash("running", "one\ntwo\nthree\nfour\nfive\nsix\x1b[2J\n")));
  assert.deepEqual(held.at(-1), ["  ⎿  … +2 lines", "     three", "     four", "     five", "     six[2J"], "the latest lines, escape sequences dropped");
  assert.equal(stderr, "● Bash(make)\n", "nothing of the output is printed while it runs");
  const count = held.length;
  view.show(stateWith("build it", bash("running", "one\ntwo\nthree\nfour\nfive\nsix\x1b[2J\n")));
  assert.equal(held.length, count, "the same lines are not held again");
  view.show(stateWith("build it", bash("complete", "one\ntwo\nthree\nfour\nfive\nsix")));
  assert.deepEqual(held.at(-1), []);
  assert.equal(stderr, "● Bash(make)\n  ⎿  one\n     two\n     three\n     four\n     … +2 lines\n");
});

test("a bash-mode command's output is printed line by line as it comes, each line once, and the rest when it ends", () => {
  let stderr = "";
  const view = createChatView({ write: () => {} }, { write: (t: string) => (stderr += t) }, { color: false });
  const prompt = bashModePrompt("./count");
  view.typed(prompt);
  const bash = (status: HarnessToolCall["status"], output?: string): HarnessToolCall => ({ id: "t1", name: "Bash", status, input: { command: "./count" }, ...(output !== undefined && { output }) });
  view.show(stateWith(prompt, bash("running", "1\n2")));
  assert.equal(stderr, "● Bash(./count)\n  ⎿  1\n", "only whole lines");
  view.show(stateWith(prompt, bash("running", "1\n2\n3\n")));
  assert.equal(stderr, "● Bash(./count)\n  ⎿  1\n     2\n     3\n");
  view.show(stateWith(prompt, bash("error", "1\n2\n3\n4\n\nExit code 1")));
  assert.equal(stderr, "● Bash(./count)\n  ⎿  1\n     2\n     3\n     4\n     \n     Exit code 1\n");
});

test("a bash-mode command whose streamed output was cut is printed whole from its result", () => {
  let stderr = "";
  const view = createChatView({ write: () => {} }, { write: (t: string) => (stderr += t) }, { color: false });
  const prompt = bashModePrompt("yes | head");
  view.typed(prompt);
  const bash = (status: HarnessToolCall["status"], output: string): HarnessToolCall => ({ id: "t1", name: "Bash", status, input: { command: "yes | head" }, output });
  view.show(stateWith(prompt, bash("running", "a\n")));
  view.show(stateWith(prompt, bash("running", "a\n\n... [5 characters of output omitted] ...\n\nz\n")));
  view.show(stateWith(prompt, bash("complete", "a\nb\nz")));
  assert.equal(stderr, "● Bash(yes | head)\n  ⎿  a\n  ⎿  a\n     b\n     z\n");
});
