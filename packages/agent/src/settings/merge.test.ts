import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeSettings } from "./merge.ts";

test("an MCP server defined in a higher scope replaces the lower definition whole", () => {
  const merged = mergeSettings([
    { mcpServers: { db: { command: "old", args: ["--a"] }, web: { url: "http://x" } } },
    { mcpServers: { db: { command: "new" } } },
  ]);
  assert.deepEqual(merged.mcpServers, { db: { command: "new" }, web: { url: "http://x" } });
});

test("server lists concatenate, booleans come from the highest scope", () => {
  const merged = mergeSettings([
    { enabledMcpjsonServers: ["a", "b"], enableAllProjectMcpServers: true },
    { enabledMcpjsonServers: ["b", "c"], enableAllProjectMcpServers: false },
  ]);
  assert.deepEqual(merged.enabledMcpjsonServers, ["a", "b", "c"]);
  assert.equal(merged.enableAllProjectMcpServers, false);
});

test("merging does not share objects with its inputs", () => {
  const user = { env: { A: "1" }, permissions: { allow: ["Read"] } };
  const merged = mergeSettings([user, {}]);
  (merged.env as Record<string, string>).A = "changed";
  merged.permissions?.allow?.push("Bash");
  assert.deepEqual(user, { env: { A: "1" }, permissions: { allow: ["Read"] } });
});
