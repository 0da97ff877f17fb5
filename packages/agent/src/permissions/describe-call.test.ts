import assert from "node:assert/strict";
import { test } from "node:test";
import { describeCall } from "./describe-call.ts";

test("an approval prompt shows the command, path, URL or query", () => {
  assert.equal(describeCall({ name: "Bash", input: { command: "npm test", description: "run tests" } }), "npm test");
  assert.equal(describeCall({ name: "Edit", input: { file_path: "src/a.ts", old_string: "a", new_string: "b" } }), "src/a.ts");
  assert.equal(describeCall({ name: "NotebookEdit", input: { notebook_path: "n.ipynb", new_source: "" } }), "n.ipynb");
  assert.equal(describeCall({ name: "Grep", input: { pattern: "TODO", path: "src" } }), "TODO in src");
  assert.equal(describeCall({ name: "Glob", input: { pattern: "**/*.ts" } }), "**/*.ts");
  assert.equal(describeCall({ name: "WebFetch", input: { url: "https://example.com", prompt: "x" } }), "https://example.com");
  assert.equal(describeCall({ name: "WebSearch", input: { query: "node 24" } }), "node 24");
  assert.equal(describeCall({ name: "LSP", input: { operation: "hover", filePath: "/tmp/a.ts", line: 3, character: 7 } }), "hover /tmp/a.ts:3:7");
  assert.equal(describeCall({ name: "LSP", input: { operation: "workspaceSymbol", filePath: "a.ts", query: "greet" } }), "workspaceSymbol a.ts greet");
  assert.equal(describeCall({ name: "ExitPlanMode", input: { plan: "1. Write it.\n2. Test it." } }), "1. Write it. ⏎ 2. Test it.");
});

test("other tools show their input as JSON", () => {
  assert.equal(describeCall({ name: "mcp__db__query", input: { sql: "select 1" } }), '{"sql":"select 1"}');
});

test("multi-line and very long text stays on one line", () => {
  assert.equal(describeCall({ name: "Bash", input: { command: "cd src\nnpm test" } }), "cd src ⏎ npm test");
  const long = describeCall({ name: "Bash", input: { command: "x".repeat(5000) } });
  assert.equal(long.length, 1000);
  assert.ok(long.endsWith("…"));
});
