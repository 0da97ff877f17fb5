// /tasks answers what it was given cut short: a prompt of any length (up to half a million
// characters) is never echoed whole into the conversation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createToolState } from "../../tools/state.ts";
import { shellsReport } from "./shells.ts";

test("/tasks with a huge argument or id answers with it cut, saying how long it was", () => {
  const state = createToolState();
  const junk = "x".repeat(100_000);
  const bad = shellsReport(state, `stop ${junk}`);
  assert.ok(bad.length < 400, `${bad.length} characters`);
  assert.match(bad, /^\/tasks takes nothing, or kill <id> to stop a background shell, not "stop x+…" \(100005 characters\)\.$/);
  const unknown = shellsReport(state, `kill ${junk}`);
  assert.ok(unknown.length < 400, `${unknown.length} characters`);
  assert.match(unknown, /^No background shell "x+…" \(100000 characters\)\. No background shells/);
  assert.equal(shellsReport(state, "stop it"), '/tasks takes nothing, or kill <id> to stop a background shell, not "stop it".');
  assert.match(shellsReport(state, "kill nope"), /^No background shell "nope"\. /);
});
