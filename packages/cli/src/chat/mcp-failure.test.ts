// A chat's report of a stdio MCP server that fails: the end of its stderr, and no hint of a debug
// log, as the runner that started the server has none a chat can turn on.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { harness, tempDir } from "../test-support.ts";

test("a chat's /mcp and its warning show a failed stdio server's stderr without naming a way to see more that the chat has not", async (t) => {
  const home = tempDir(t);
  const project = tempDir(t);
  const script = join(project, "server.mjs");
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  writeFileSync(script, `process.stderr.write(${JSON.stringify(lines.join("\n") + "\n")}); process.exit(1);\n`);
  const config = JSON.stringify({ mcpServers: { broken: { command: process.execPath, args: [script] } } });

  const { code, stdout, stderr } = await harness(["chat", "--local", "--mcp-config", config], { HOME: home, ANTHROPIC_API_KEY: "k" }, { cwd: project, stdin: "/mcp\n" }).result;
  assert.equal(code, 0, stderr);
  const tail = ["line 26", "line 27", "line 28", "line 29", "line 30"];
  assert.match(stdout, new RegExp(`^  broken: failed: its process exited with code 1; its stderr ended with:\\n${tail.map((line) => ` {6}${line}`).join("\\n")} · flag `, "m"));
  assert.match(stderr, new RegExp(`✗ MCP server broken failed: its process exited with code 1; its stderr ended with:\\n${tail.map((line) => ` {2}${line}`).join("\\n")}\\n`));
  assert.doesNotMatch(stdout + stderr, /--debug/);
});
