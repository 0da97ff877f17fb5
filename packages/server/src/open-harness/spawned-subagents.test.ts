import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_SPAWNED, MAX_SPAWNED_IN_ALL, createSpawnedSubagents } from "./spawned-subagents.ts";
import type { ToolInvoker } from "./tool-invoke.ts";

const unused: ToolInvoker = () => {
  throw new Error("no task is delegated here");
};
const fields = { name: "general-purpose", description: "d" };

test("spawned sub-agents are bounded across users: past the most kept, the oldest idle one of anyone's goes", () => {
  const subagents = createSpawnedSubagents(unused);
  const users = Math.ceil(MAX_SPAWNED_IN_ALL / MAX_SPAWNED) + 5;
  const first = subagents.spawn("user0", "s", fields);
  let kept = 1;
  for (let user = 0; user < users; user++) {
    for (let i = user === 0 ? 1 : 0; i < MAX_SPAWNED; i++) {
      subagents.spawn(`user${user}`, "s", fields);
      kept++;
    }
  }
  assert.ok(kept > MAX_SPAWNED_IN_ALL);
  assert.equal(subagents.get("user0", "s", first.id), undefined, "the oldest went");
  let held = 0;
  for (let user = 0; user < users; user++) held += subagents.list(`user${user}`, "s").length;
  assert.equal(held, MAX_SPAWNED_IN_ALL);
});

test("a deleted session's spawned sub-agents are let go; its user's others stay", () => {
  const subagents = createSpawnedSubagents(unused);
  const gone = subagents.spawn("alice", "s1", fields);
  const other = subagents.spawn("alice", "s2", fields);
  const bobs = subagents.spawn("bob", "s1", fields);
  subagents.forgetSession("alice", "s1");
  assert.equal(subagents.get("alice", "s1", gone.id), undefined);
  assert.equal(subagents.get("alice", "s2", other.id), other);
  assert.equal(subagents.get("bob", "s1", bobs.id), bobs);
});
