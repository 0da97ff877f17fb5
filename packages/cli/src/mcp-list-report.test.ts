// `harness mcp list` on a stdio server that fails: the failure is said as a run says it (the end of
// the server's stderr, under its row), with the way to see all of its stderr that works from here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { harness, tempDir } from "./test-support.ts";

function place(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  const project = tempDir(t);
  mkdirSync(join(project, ".git"));
  return { home, project, list: () => harness(["mcp", "list"], { HOME: home }, { cwd: project }).result };
}

test("harness mcp list shows a failed stdio server's reason on its row and the end of its stderr under it, with how to see the rest", async (t) => {
  const p = place(t);
  const script = join(p.project, "server.mjs");
  const early = Array.from({ length: 40 }, (_, i) => `early line ${i + 1}`);
  const last = ["Error: cannot reach the database at db.internal:5432", `  at ${"x".repeat(300)}`, "  at main (server.mjs:1:1)", "Node.js v24"];
  writeFileSync(script, `process.stderr.write(${JSON.stringify([...early, ...last].join("\n") + "\n")}); process.exit(1);\n`);
  writeFileSync(join(p.home, ".claude.json"), JSON.stringify({ mcpServers: { broken: { command: process.execPath, args: [script] } } }));

  const { code, stdout, stderr } = await p.list();
  assert.equal(code, 0, stderr);
  const lines = stdout.trimEnd().split("\n");
  const row = lines.findIndex((line) => line.startsWith("broken (user): "));
  assert.match(lines[row]!, / - ✗ failed: its process exited with code 1; its stderr ended with:$/);
  assert.deepEqual(lines.slice(row + 1), [
    "    early line 40",
    "    Error: cannot reach the database at db.internal:5432",
    `      at ${"x".repeat(194)}…`,
    "      at main (server.mjs:1:1)",
    "    Node.js v24",
    "    (harness run --debug mcp /mcp shows all of its stderr)",
  ]);
});
