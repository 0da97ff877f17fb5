// The debug log's filters and lines (`harness run --debug [filter]`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEBUG_CATEGORIES, debugLog, debugOn, hideInDebugLog, looksLikeDebugFilter, parseDebugFilter, startDebugLog, stopDebugLog } from "./debug-log.ts";

const shown = (filter: string) => {
  const shows = parseDebugFilter(filter);
  if (typeof shows === "string") return shows;
  return DEBUG_CATEGORIES.filter(shows);
};

test("a filter names the categories to show, or with ! those to leave out; mixing the two is refused", () => {
  assert.deepEqual(shown(""), ["api", "mcp", "hooks", "permissions", "telemetry"]);
  assert.deepEqual(shown("api, Hooks"), ["api", "hooks"]);
  assert.deepEqual(shown("!mcp,!statsig"), ["api", "hooks", "permissions", "telemetry"]);
  assert.deepEqual(shown("statsig"), [], "Claude Code's own categories have no lines here");
  assert.match(String(shown("api,!mcp")), /mixes categories to show and to hide/);
  assert.match(String(shown("api hooks")), /"api hooks" is not a category/);
  assert.equal(looksLikeDebugFilter("api,!1p"), true);
  assert.equal(looksLikeDebugFilter("fix"), false);
});

test("off, nothing is written; on, one timestamped line per call; a sink that throws turns the log off", () => {
  const lines: string[] = [];
  debugLog("api", "before");
  assert.equal(debugOn("api"), false);
  startDebugLog((line) => lines.push(line), (category) => category !== "mcp");
  debugLog("api", "request");
  debugLog("mcp", "left out");
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^\d{4}-\d\d-\d\dT[\d:.]+Z \[DEBUG\] \[api\] request\n$/);
  startDebugLog(() => {
    throw new Error("EPIPE");
  });
  debugLog("hooks", "lost");
  assert.equal(debugOn("hooks"), false);
  stopDebugLog();
});

test("a line hides the secrets of the environment by name, those it is given and those learnt since, and flag-shaped ones", (t) => {
  process.env.HARNESS_TEST_API_KEY = "env-key-0123456789";
  t.after(() => delete process.env.HARNESS_TEST_API_KEY);
  const lines: string[] = [];
  hideInDebugLog(["learnt-while-off-123"]);
  startDebugLog((line) => lines.push(line), () => true, ["given-token-abcdef"]);
  hideInDebugLog(["mcp-env-value-xyz"]);
  debugLog("mcp", "server s stderr: env-key-0123456789 given-token-abcdef mcp-env-value-xyz learnt-while-off-123");
  debugLog("hooks", 'PreToolUse: command "tool --secret=abcdefgh --path /tmp/x" exited 0');
  stopDebugLog();
  assert.match(lines[0]!, /\[mcp\] server s stderr: \*\*\* \*\*\* \*\*\* learnt-while-off-123\n$/, "what was learnt while the log was off is not kept");
  assert.match(lines[1]!, /command "tool --secret=\*\*\* --path \/tmp\/x" exited 0\n$/);
});
