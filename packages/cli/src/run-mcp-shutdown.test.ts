// A run's stdio MCP servers end with the run, and with them whatever they started: a launcher's
// server, a helper it keeps. The run does not wait on pipes that such children still hold.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcpTestServerCommand, processAlive, startFakeAnthropic, waitFor } from "@harness/test-utils";
import { harness, tempDir, withFake } from "./test-support.ts";

test("harness run ends its stdio MCP servers' children with them, and promptly", async (t) => {
  const dir = tempDir(t);
  const server = mcpTestServerCommand();
  const launch = [server.command, ...server.args].map((w) => `'${w}'`).join(" ");
  // The server leaves a child behind that holds its stdout and stderr.
  const config = JSON.stringify({ mcpServers: { helper: { command: "bash", args: ["-c", `sleep 300 & echo $! > child.pid; exec ${launch}`] } } });
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "done" }] }));

  const started = performance.now();
  const run = await harness(["run", "--model", "claude-sonnet-4-6", "--mcp-config", config, "--", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: dir }).result;
  const tookMs = performance.now() - started;

  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /done/);
  assert.ok(fake.requests[0]!.body.tools && JSON.stringify(fake.requests[0]!.body.tools).includes("mcp__helper__"), "the server was connected");
  const child = Number(readFileSync(join(dir, "child.pid"), "utf8"));
  t.after(() => processAlive(child) && process.kill(child, "SIGKILL"));
  await waitFor(() => !processAlive(child), "the server's child to be gone", { timeoutMs: 1000 });
  // The run, the command's own start and the servers' shutdown (0.5 s for them to exit on their own).
  assert.ok(tookMs < 4000, `took ${Math.round(tookMs)} ms`);
});
