import { test } from "node:test";
import assert from "node:assert/strict";
import { groupProblems, loadedPlaces, placeOf } from "./hook-places.ts";

const command = (text: string) => ({ type: "command", command: text });

test("a listed hook's numbers lead to its place in the file, past the groups and hooks the runs leave out", () => {
  const groups = [
    { matcher: 7, hooks: [command("never loaded")] },
    { matcher: "Bash", hooks: [{ type: "command", command: "" }, command("first loaded"), { type: "telepathy" }, command("second loaded")] },
    "not a group",
    { hooks: [command("third loaded")] },
  ];
  assert.deepEqual(loadedPlaces("PreToolUse", groups), [
    { group: 1, hooks: [1, 3] },
    { group: 3, hooks: [0] },
  ]);
  assert.deepEqual(placeOf("PreToolUse", groups, 0, 1), { group: 1, hook: 3 });
  assert.deepEqual(placeOf("PreToolUse", groups, 1, 0), { group: 3, hook: 0 });
  assert.equal(placeOf("PreToolUse", groups, 2, 0), undefined);
  assert.deepEqual(loadedPlaces("PreToolUse", "not a list"), []);
});

test("what is wrong with a hook is said as the runs' loader says it, named from where it would go", () => {
  assert.equal(groupProblems("Stop", { hooks: [command("echo done")] }, "hook"), undefined);
  assert.match(groupProblems("Stop", { hooks: [{ type: "http", url: "ftp://x" }] }, "hook")!, /^hook\.hooks\[0\]\.url: /);
  assert.match(groupProblems("SessionStart", { hooks: [{ type: "prompt", prompt: "ok?" }] }, "hook")!, /prompt hooks/);
  assert.match(groupProblems("NoSuchEvent", { hooks: [command("x")] }, "hook")!, /unknown hook event/);
});
