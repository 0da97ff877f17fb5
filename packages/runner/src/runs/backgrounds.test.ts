// A request to move a Bash call to the background that comes before the call listens (it is still
// announced only) is held run-wide until it does; one that comes to nothing is told.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createBackgrounds } from "./backgrounds.ts";

const started = (toolUseId: string, toolName = "Bash") => ({ type: "tool.started" as const, toolName, toolUseId });
const completed = (toolUseId: string, denied?: boolean) => ({ type: "tool.completed" as const, toolUseId, output: "x", isError: denied === true, ...(denied && { denied }) });

test("a request for an announced Bash call that does not listen yet is held and handed to it as it starts", () => {
  const backgrounds = createBackgrounds();
  assert.equal(backgrounds.push("toolu_1"), false, "no such call announced");
  assert.equal(backgrounds.observe(started("toolu_1")), undefined);
  assert.equal(backgrounds.observe(started("toolu_read", "Read")), undefined);
  assert.equal(backgrounds.push("toolu_1"), true, "held");
  assert.equal(backgrounds.push("toolu_read"), false, "only Bash calls are held");
  const heard: (string | undefined)[] = [];
  backgrounds.subscribe((id) => {
    heard.push(id);
    return id === "toolu_1";
  });
  assert.deepEqual(heard, ["toolu_1"]);
  assert.equal(backgrounds.observe(completed("toolu_1")), undefined, "it moved: nothing to tell");
});

test("without an id, every announced call waits too; a held request whose call ends without starting, or is refused, is told", () => {
  const backgrounds = createBackgrounds();
  backgrounds.observe(started("toolu_a"));
  backgrounds.observe(started("toolu_b"));
  backgrounds.observe(started("toolu_c"));
  // toolu_c already listens (its checks began): it takes the request at once.
  const stop = backgrounds.subscribe((id) => id === "toolu_c" || id === undefined);
  assert.equal(backgrounds.push(undefined), true);
  assert.match(backgrounds.observe(completed("toolu_a", true)) ?? "", /^The Bash call toolu_a ended before its command started \(it was refused\): nothing went to the background\.$/);
  assert.match(backgrounds.observe(completed("toolu_b")) ?? "", /toolu_b ended before its command started \(it never ran\)/);
  stop();
  assert.match(backgrounds.observe(completed("toolu_c", true)) ?? "", /^The Bash call toolu_c was refused before its command started/);
  assert.equal(backgrounds.push(undefined), false, "nothing announced or listening any more");
});

test("without an id, a call waiting for approval is passed by: its latch never hears the request", () => {
  const waiting = ["toolu_asks"];
  const backgrounds = createBackgrounds(() => waiting);
  backgrounds.observe(started("toolu_runs"));
  backgrounds.observe(started("toolu_asks"));
  const heard: (string | undefined)[] = [];
  backgrounds.subscribe((id) => (heard.push(id), true));
  assert.equal(backgrounds.push(undefined), true);
  assert.deepEqual(heard, ["toolu_runs"]);
  waiting.length = 0;
  backgrounds.observe(completed("toolu_runs"));
  assert.equal(backgrounds.push(undefined), true, "approved, it runs: now it moves");
  assert.deepEqual(heard, ["toolu_runs", "toolu_asks"]);
});
