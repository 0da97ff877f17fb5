// A stdio MCP server that fails at start, as one launched through npx does when its package cannot
// be fetched: the run says so in a few lines (its exit code and the last meaningful lines of its
// stderr, without npm's boilerplate), and the debug log has all of its stderr.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

/** What npm 10 prints when `npx -y some-package` cannot fetch the package, after its verbose lines. */
const NPM_404 = [
  "npm error code E404",
  "npm error 404 Not Found - GET https://registry.npmjs.org/@example%2fmcp-server - Not found",
  "npm error 404",
  "npm error 404  '@example/mcp-server@*' is not in this registry.",
  "npm error 404",
  "npm error 404 Note that you can also install from a",
  "npm error 404 tarball, folder, http url, or git url.",
  "npm error A complete log of this run can be found in: /home/someone/.npm/_logs/2026-01-01T00_00_00_000Z-debug-0.log",
];

async function failingRun(t: Parameters<typeof tempDir>[0], flags: string[], prompt = "hi") {
  const dir = tempDir(t);
  const script = join(dir, "server.mjs");
  const early = Array.from({ length: 60 }, (_, i) => `npm verbose early line ${i + 1}`);
  writeFileSync(script, `process.stderr.write(${JSON.stringify([...early, ...NPM_404].join("\n") + "\n")}); process.exit(1);\n`);
  const config = JSON.stringify({ mcpServers: { broken: { command: process.execPath, args: [script] } } });
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "done" }] }));
  const run = await harness(["run", "--model", "claude-sonnet-4-6", "--mcp-config", config, ...flags, "--", prompt], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: dir }).result;
  return { dir, ...run };
}

test("a stdio MCP server that exits at start is reported in a few lines: its exit code and the end of its stderr without npm's boilerplate", async (t) => {
  const { code, stdout, stderr } = await failingRun(t, []);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /done/);
  const report = stderr.slice(stderr.indexOf("✗ MCP server broken failed"));
  assert.equal(
    report,
    [
      "✗ MCP server broken failed: its process exited with code 1; its stderr ended with:",
      "  npm verbose early line 59",
      "  npm verbose early line 60",
      "  npm error code E404",
      "  npm error 404 Not Found - GET https://registry.npmjs.org/@example%2fmcp-server - Not found",
      "  npm error 404  '@example/mcp-server@*' is not in this registry.",
      "  (harness run --debug mcp shows all of its stderr)",
      "",
    ].join("\n"),
  );
  assert.equal(stderr.split("MCP server broken").length, 2, `reported once:\n${stderr}`);
});

test("with --debug mcp the debug log has every line of a failed stdio server's stderr, and the report no hint", async (t) => {
  const { code, stderr, dir } = await failingRun(t, ["--debug", "mcp", "--debug-file", "debug.log"]);
  assert.equal(code, 0, stderr);
  const log = readFileSync(join(dir, "debug.log"), "utf8");
  const said = log.split("\n").flatMap((line) => /\[mcp\] server broken stderr: (.*)$/.exec(line)?.[1] ?? []);
  assert.deepEqual(said, [...Array.from({ length: 60 }, (_, i) => `npm verbose early line ${i + 1}`), ...NPM_404]);
  assert.match(log, /\[mcp\] server broken failed: its process exited with code 1/);
  assert.match(stderr, /✗ MCP server broken failed: its process exited with code 1; its stderr ended with:\n(  .*\n){5}$/);
});

test('harness run "/mcp" shows a failed stdio server\'s report under its row', async (t) => {
  const { code, stdout, stderr } = await failingRun(t, [], "/mcp");
  assert.equal(code, 0, stderr);
  assert.match(
    stdout,
    /^ {2}broken: failed: its process exited with code 1; its stderr ended with:\n( {6}\S.*\n){4} {6}npm error 404 {2}'@example\/mcp-server@\*' is not in this registry\.\n {6}\(harness run --debug mcp shows all of its stderr\) · flag \(/m,
  );
});
