// An MCP tool call's progress reaches clients as it comes, end to end, as a Bash call's output
// does: a real server and its runner, the MCP test server (a user-scope server of the server's
// user), the fake model asking for its `progress` tool, and a minimal client.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { mcpTestServerCommand, type MinimalState } from "@harness/test-utils";
import { STREAM_CUT_NOTE } from "@harness/protocol";
import { idle, startHarness, type Harness } from "./e2e-commands-support.ts";

const call = (s: MinimalState) => s.messages.at(-1)?.toolCalls?.[0];

async function withMcpServer(): Promise<Harness> {
  const h = await startHarness();
  const home = join(h.dataDir, "home");
  await mkdir(home, { recursive: true });
  await writeFile(join(home, ".claude.json"), JSON.stringify({ mcpServers: { tools: mcpTestServerCommand() } }));
  return h;
}

test("an MCP tool's progress shows in the client's state while the call runs, and its result replaces it", async () => {
  const h = await withMcpServer();
  try {
    const gate = join(h.dataDir, "gate");
    h.fake.push({ toolUses: [{ name: "mcp__tools__progress", input: { steps: 3, gate } }] }, { text: "Built." });
    const client = await h.connect("build");
    client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "build it" });
    await client.waitForState((s) => call(s)?.status === "running" && /\[3\/3\] step 3\n$/.test(call(s)?.output ?? ""), 30_000, "the progress while the call runs");
    assert.equal(call(client.state!)!.output, "[1/3] step 1\n[2/3] step 2\n[3/3] step 3\n");

    await writeFile(gate, "");
    await client.waitForState(idle, 30_000, "the run to end");
    assert.deepEqual(client.errors, []);
    assert.equal(call(client.state!)?.status, "complete");
    assert.equal(call(client.state!)?.output, "done after 3 steps");
    await client.close();
  } finally {
    await h.close();
  }
});

test("an MCP server flooding progress reaches clients as a few coalesced, capped updates", async () => {
  const h = await withMcpServer();
  try {
    const gate = join(h.dataDir, "gate");
    const steps = 5_000;
    h.fake.push({ toolUses: [{ name: "mcp__tools__progress", input: { steps, gate } }] }, { text: "Flooded." });
    const client = await h.connect("flood");
    client.send({ type: "configure", config: { permissionMode: "fullAuto" } }, { type: "submit", prompt: "flood" });
    const started = Date.now();
    await client.waitForState((s) => (call(s)?.output ?? "").endsWith(`[${steps}/${steps}] step ${steps}\n`), 60_000, "the last report");
    const seconds = (Date.now() - started) / 1000;
    const output = call(client.state!)!.output!;
    assert.match(output, /^\[1\/5000\] step 1\n/, "the first lines are kept");
    assert.match(output, STREAM_CUT_NOTE, "the middle is cut");
    assert.ok(output.length < 20_000, `capped, got ${output.length} characters`);
    const updates = client.frames.filter((f) => f.type === "delta" && f.operations.some((op) => op.path.at(-1) === "output")).length;
    assert.ok(updates < 10 * seconds + 5, `${updates} output updates in ${seconds} s for ${steps} reports`);

    await writeFile(gate, "");
    await client.waitForState(idle, 30_000, "the run to end");
    assert.equal(call(client.state!)?.output, `done after ${steps} steps`);
    await client.close();
  } finally {
    await h.close();
  }
});
