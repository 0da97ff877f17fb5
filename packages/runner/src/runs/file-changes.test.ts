import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent } from "@harness/protocol";
import type { Checkpoints } from "../checkpoints/checkpoints.ts";
import { trackFileChanges } from "./file-changes.ts";

/** Checkpoints whose workspace changes as `changes` say: tree n is the workspace after the n-th
 * change, each change a list of files created or changed. */
function fakeCheckpoints(changes: string[][]) {
  const asked: string[] = [];
  let now = 0;
  const checkpoints: Pick<Checkpoints, "changedSince"> = {
    async changedSince(tree, max) {
      asked.push(tree);
      const since = Number(tree);
      const paths = [...new Set(changes.slice(since, now).flat())].sort();
      return { ok: true, value: { paths: paths.slice(0, max), truncated: paths.length > max, tree: String(now) } };
    },
  };
  return { checkpoints, asked, change: () => now++ };
}

const completed = (toolUseId: string, extra: Partial<AgentEvent> = {}): AgentEvent => ({ type: "tool.completed", toolUseId, output: "", isError: false, ...extra }) as AgentEvent;

test("a run that took no checkpoint compares nothing and reports nothing", async () => {
  const fake = fakeCheckpoints([["a.txt"]]);
  const events: AgentEvent[] = [];
  const changes = trackFileChanges(fake.checkpoints, (e) => events.push(e));
  changes.taken(undefined);
  await changes.mayChange("t1");
  fake.change();
  changes.emit(completed("t1"));
  assert.equal(await changes.end(), undefined);
  assert.deepEqual(events, [completed("t1")]);
  assert.deepEqual(fake.asked, []);
});

test("right after each call that may change files, the files not reported before; at the end, every file changed since the checkpoint", async () => {
  const fake = fakeCheckpoints([["b.txt", "a.txt"], ["a.txt", "c.txt"], ["late.txt"]]);
  const events: AgentEvent[] = [];
  const changes = trackFileChanges(fake.checkpoints, (e) => events.push(e));
  changes.taken("0");
  await changes.mayChange("t1");
  fake.change();
  changes.emit(completed("t1"));
  // What the run says meanwhile waits behind the report; a read-only call (never announced as one
  // that may change files) is not compared after.
  changes.emit({ type: "assistant.delta", text: "next" });
  changes.emit(completed("read"));
  await changes.mayChange("t2");
  assert.deepEqual(events, [
    completed("t1"),
    { type: "files.changed", toolUseId: "t1", paths: ["a.txt", "b.txt"] },
    { type: "assistant.delta", text: "next" },
    completed("read"),
  ]);
  fake.change();
  changes.emit(completed("t2", { agentId: "sub", parentToolUseId: "task" }));
  // A hook's command waits for the reports too.
  await changes.mayChange();
  // A background process's file, after the last call: only the end names it.
  fake.change();
  assert.deepEqual(await changes.end(), { paths: ["a.txt", "b.txt", "c.txt", "late.txt"] });
  assert.deepEqual(events.slice(5), [{ type: "files.changed", agentId: "sub", parentToolUseId: "task", toolUseId: "t2", paths: ["c.txt"] }]);
  assert.deepEqual(fake.asked, ["0", "1", "0"], "each call compared with the last report, the end with the checkpoint");
});

test("a run that changes more files than a report names says the list is cut, and reports no more", async () => {
  const fake = fakeCheckpoints([["1", "2", "3", "4"], ["5"]]);
  const events: AgentEvent[] = [];
  const changes = trackFileChanges(fake.checkpoints, (e) => events.push(e), 3);
  changes.taken("0");
  for (const id of ["t1", "t2"]) {
    await changes.mayChange(id);
    fake.change();
    changes.emit(completed(id));
  }
  assert.deepEqual(await changes.end(), { paths: ["1", "2", "3"], truncated: true });
  assert.deepEqual(events.filter((e) => e.type === "files.changed"), [{ type: "files.changed", toolUseId: "t1", paths: ["1", "2", "3"], truncated: true }]);
});

test("a comparison that fails reports nothing, and the run goes on", async () => {
  const events: AgentEvent[] = [];
  const changes = trackFileChanges({ changedSince: async () => ({ ok: false, message: "git broke" }) }, (e) => events.push(e));
  changes.taken("0");
  await changes.mayChange("t1");
  changes.emit(completed("t1"));
  assert.equal(await changes.end(), undefined);
  assert.deepEqual(events, [completed("t1")]);
});
