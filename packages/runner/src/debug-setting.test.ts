// A runner's debug log as its server hands it on: HARNESS_DEBUG_FILE and HARNESS_DEBUG.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { debugLog, debugWhere, setDebugWhere, stopDebugLog } from "@harness/llm/debug-log";
import { debugSetting, startRunnerDebug } from "./debug-setting.ts";

test("HARNESS_DEBUG: off, 1 for all, a filter; a bad one is named", () => {
  for (const off of [undefined, "", "0", "false", "off"]) assert.deepEqual(debugSetting(off), { filter: undefined });
  for (const all of ["1", "true", "ON"]) assert.deepEqual(debugSetting(all), { filter: "" });
  assert.deepEqual(debugSetting("mcp,hooks"), { filter: "mcp,hooks" });
  assert.match((debugSetting("api,!mcp") as { error: string }).error, /^HARNESS_DEBUG: the filter "api,!mcp" mixes/);
});

test("a runner appends its debug lines to the file, with its token hidden, names the file in reports, and leaves neither variable to its tools", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "harness-runner-debug-"));
  t.after(() => {
    stopDebugLog();
    setDebugWhere(undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  const file = join(dir, "runner-0.debug.log");
  const env: NodeJS.ProcessEnv = { HARNESS_DEBUG: "mcp", HARNESS_DEBUG_FILE: file, PATH: "/bin" };
  assert.equal(startRunnerDebug(env, ["runner-token-0123456789"]), undefined);
  assert.deepEqual(env, { PATH: "/bin" });
  debugLog("mcp", "server s stderr: token runner-token-0123456789 https://u:pw@h/x?k=v");
  debugLog("api", "not this category");
  assert.match(readFileSync(file, "utf8"), /^\S+ \[DEBUG\] \[mcp\] server s stderr: token \*\*\* https:\/\/\*\*\*@h\/x\?\*\*\*\n$/);
  assert.equal(debugWhere("mcp"), file);
  assert.equal(debugWhere("api"), undefined);
});

test("without a file the runner writes nothing; a file it cannot write is refused, naming it", () => {
  const env: NodeJS.ProcessEnv = { HARNESS_DEBUG: "1" };
  assert.equal(startRunnerDebug(env, []), undefined);
  assert.equal(debugWhere("mcp"), undefined);
  assert.match(startRunnerDebug({ HARNESS_DEBUG: "1", HARNESS_DEBUG_FILE: "/nonexistent-dir/x.log" }, []) ?? "", /^HARNESS_DEBUG_FILE: cannot write \/nonexistent-dir\/x\.log: ENOENT$/);
});
