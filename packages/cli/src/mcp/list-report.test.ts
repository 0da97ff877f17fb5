// `harness mcp list` on a stdio server that fails, and on one that needs the settings' env: the
// failure is said as a run says it (the end of the server's stderr, under its row), with the way to
// see all of its stderr that works from here, and the servers start in the env a run gives them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mcpTestServerCommand } from "@harness/test-utils";
import { harness, tempDir } from "../test-support.ts";

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

test("harness mcp list starts a stdio server with the settings' env, as a run does", async (t) => {
  const p = place(t);
  const server = mcpTestServerCommand();
  // The server starts only with MCP_NEEDED set, and its path comes from the settings' env too.
  const needs = { command: "bash", args: ["-c", 'test "$MCP_NEEDED" = yes || { echo "MCP_NEEDED is not set" >&2; exit 1; }; exec "$0" "$1"', server.command, "${MCP_TEST_SERVER}"] };
  writeFileSync(join(p.home, ".claude.json"), JSON.stringify({ mcpServers: { needs } }));
  mkdirSync(join(p.home, ".claude"));
  writeFileSync(join(p.home, ".claude", "settings.json"), JSON.stringify({ env: { MCP_TEST_SERVER: server.args[0] } }));
  mkdirSync(join(p.project, ".claude"));
  writeFileSync(join(p.project, ".claude", "settings.json"), JSON.stringify({ env: { MCP_NEEDED: "yes" } }));

  const run = await harness(["run", "--", "/mcp"], { HOME: p.home }, { cwd: p.project }).result;
  assert.match(run.stdout, /needs: connected/, run.stdout + run.stderr);
  const { code, stdout, stderr } = await p.list();
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^needs \(user\): .* - ✓ connected, \d+ tools$/m);
});
