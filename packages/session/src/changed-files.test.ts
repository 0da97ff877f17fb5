import { test } from "node:test";
import assert from "node:assert/strict";
import { applyOperations, MAX_CHANGED_FILES, type HarnessState, type RunnerEvent, type RunnerEventPayload } from "@harness/protocol";
import { translateEvent, type RunCursor } from "./translate.ts";

function running(): HarnessState {
  return {
    status: "running",
    messages: [
      { id: "u1", role: "user", content: "build", status: "complete" },
      { id: "a1", role: "assistant", content: "", status: "running" },
    ],
  };
}

function play(state: HarnessState, ...events: RunnerEventPayload[]) {
  const cursor: RunCursor = { assistantMessageId: "a1", afterTool: false };
  let seq = 0;
  for (const payload of events) state = applyOperations(state, translateEvent(state, cursor, { ...payload, seq: ++seq } as RunnerEvent).operations);
  return state;
}

test("the files a run changed gather on its reply, each once, in the order first reported; the run's end adds the ones not reported", () => {
  const state = play(
    running(),
    { type: "files.changed", toolUseId: "t1", paths: ["build/out.txt", "tmp.txt"] },
    { type: "files.changed", toolUseId: "t2", paths: ["notes.md", "build/out.txt"] },
    { type: "run.completed", result: "", changedFiles: { paths: ["build/out.txt", "late.txt", "notes.md"] } },
  );
  // A file deleted since (tmp.txt) stays named: a client that numbers them keeps its numbers.
  assert.deepEqual(state.messages[1].changedFiles, { paths: ["build/out.txt", "tmp.txt", "notes.md", "late.txt"] });
  const failed = play(running(), { type: "run.error", message: "stopped", changedFiles: { paths: ["half.txt"] } });
  assert.deepEqual(failed.messages[1].changedFiles, { paths: ["half.txt"] });
});

test("a run that took no checkpoint has no changed files; one that changed nothing has an empty list", () => {
  assert.equal(play(running(), { type: "run.completed", result: "" }).messages[1].changedFiles, undefined);
  assert.deepEqual(play(running(), { type: "run.completed", result: "", changedFiles: { paths: [] } }).messages[1].changedFiles, { paths: [] });
});

test("a report after a call names on the call the files it was first to change", () => {
  const withCalls = running();
  withCalls.messages[1].toolCalls = [
    { id: "t1", name: "Bash", status: "complete" },
    { id: "t2", name: "Edit", status: "complete" },
  ];
  const state = play(
    withCalls,
    { type: "files.changed", toolUseId: "t1", paths: ["a.txt", "b.txt"] },
    { type: "files.changed", toolUseId: "t2", paths: ["b.txt", "c.txt"] },
    { type: "files.changed", toolUseId: "t1", paths: ["d.txt"] },
    { type: "files.changed", toolUseId: "gone", paths: ["e.txt"] },
  );
  assert.deepEqual(state.messages[1].toolCalls!.map((call) => call.changedFiles), [["a.txt", "b.txt", "d.txt"], ["c.txt"]]);
  assert.deepEqual(state.messages[1].changedFiles, { paths: ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt"] });
});

test("the list stops at its cap and says it was cut; a report cut by the runner says so too", () => {
  const many = Array.from({ length: MAX_CHANGED_FILES }, (_, i) => `f${i}`);
  const state = play(running(), { type: "files.changed", paths: many.slice(0, 10) }, { type: "files.changed", paths: [...many.slice(5), "one-too-many"] });
  assert.equal(state.messages[1].changedFiles!.paths.length, MAX_CHANGED_FILES);
  assert.equal(state.messages[1].changedFiles!.truncated, true);
  const cut = play(running(), { type: "files.changed", paths: ["a"], truncated: true });
  assert.deepEqual(cut.messages[1].changedFiles, { paths: ["a"], truncated: true });
});
