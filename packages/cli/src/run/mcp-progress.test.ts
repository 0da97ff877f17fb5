// `harness run` prints an MCP tool call's progress as the server reports it, before the call ends.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { mcpTestServerCommand, startFakeAnthropic, waitFor } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

test("harness run prints an MCP tool's progress lines while the call runs, then its result", async (t) => {
  const dir = tempDir(t);
  const gate = join(dir, "gate");
  const config = JSON.stringify({ mcpServers: { tools: mcpTestServerCommand() } });
  const fake = await withFake(
    t,
    startFakeAnthropic({ replies: [{ toolUses: [{ name: "mcp__tools__progress", input: { steps: 3, gate } }] }, { text: "Built." }] }),
  );

  const run = harness(["run", "--model", "claude-sonnet-4-6", "--mcp-config", config, "--allowedTools", "mcp__tools__progress", "--", "build it"], { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, HARNESS_BUNDLE: "0" }, { cwd: dir });
  t.after(() => run.child.exitCode === null && run.child.kill());
  let stderr = "";
  run.child.stderr!.on("data", (d: string) => (stderr += d));
  await waitFor(() => stderr.includes("[3/3] step 3"), "the progress while the call runs", { timeoutMs: 30_000 });
  assert.ok(!existsSync(gate));
  assert.equal(stderr, "● mcp__tools__progress({\"steps\":3,\"gate\":" + JSON.stringify(gate) + "})\n  ⎿  [1/3] step 1\n     [2/3] step 2\n     [3/3] step 3\n");

  writeFileSync(gate, "");
  const result = await run.result;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Built\./);
  assert.match(result.stderr, /\[3\/3\] step 3\n  ⎿  done after 3 steps\n/);
});
