// A run's stdio MCP servers end with the run, and with them whatever they started: a launcher's
// server, a helper it keeps. The run does not wait on pipes that such children still hold.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcpTestServerCommand, processAlive, startFakeAnthropic, waitFor } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

test("harness run ends its stdio MCP servers' children with them, and promptly", async (t) => {
  const dir = tempDir(t);
  const server = mcpTestServerCommand();
  const launch = [server.command, ...server.args].map((w) => `'${w}'`).join(" ");
  // The server leaves a child behind that holds its stdout and stderr.
  const config = JSON.stringify({ mcpServers: { helper: { command: "bash", args: ["-c", `sleep 300 & echo $! > child.pid; exec ${launch}`] } } });
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "done" }] }));

  const run = await harness(["run", "--model", "claude-sonnet-4-6", "--mcp-config", config, "--", "hi"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: dir }).result;
  // From the model's request to the process's end: the run's start and the server's, which a loaded
  // machine can stretch, are not counted.
  const endingMs = performance.timeOrigin + performance.now() - fake.requests[0]!.at;

  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /done/);
  assert.ok(fake.requests[0]!.body.tools && JSON.stringify(fake.requests[0]!.body.tools).includes("mcp__helper__"), "the server was connected");
  const child = Number(readFileSync(join(dir, "child.pid"), "utf8"));
  t.after(() => processAlive(child) && process.kill(child, "SIGKILL"));
  await waitFor(() => !processAlive(child), "the server's child to be gone", { timeoutMs: 10_000 });
  // The reply and the servers' shutdown (0.5 s for them to exit on their own), not the 5 s wait for
  // the pipes the child holds.
  assert.ok(endingMs < 3500, `the run took ${Math.round(endingMs)} ms to end after its model request`);
});
