// POST /mcp/probe over real HTTP: the builtin backend starts a workspace's MCP servers as a run
// would, asks them and stops them; what a run's configuration refuses, a busy runner, a backend
// without servers and a probe out of time are answered as such.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mcpEntryFingerprint } from "@harness/agent/mcp-load-config";
import { mcpTestServerCommand } from "@harness/test-utils";
import { builtinBackend } from "../backends/builtin.ts";
import { RunnerHttpError } from "../client/client.ts";
import { collect, fakeBackend, never, post, startRunner, tempDir, waitFor, waitForAbort, type TestContext } from "../test-support.ts";

/** The processes whose environment holds `text`. */
function processesWith(text: string): string[] {
  return readdirSync("/proc").filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").includes(text);
    } catch {
      return false;
    }
  });
}

async function runnerIn(t: TestContext, mcpServers: Record<string, unknown>) {
  const root = tempDir(t, "harness-mcp-probe-");
  const workspace = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  writeFileSync(join(workspace, ".mcp.json"), JSON.stringify({ mcpServers }));
  const backend = builtinBackend({ sharedResources: true, env: { ...process.env, HOME: home } });
  const runner = await startRunner(t, { workspace, backend });
  t.after(() => backend.dispose?.());
  return runner;
}

test("the servers a run would start are started, asked and pinged; one the host approved starts, one nobody approved is said to wait", async (t) => {
  const kit = { ...mcpTestServerCommand({ prompts: true, resources: true }), env: { KIT_TOKEN: "kit-secret-0123456789" } };
  const { client } = await runnerIn(t, { kit, other: mcpTestServerCommand() });
  const { servers } = await client.probeMcp({ mcpApprovals: [{ name: "kit", entry: mcpEntryFingerprint(kit) }] }, never());
  const byName = Object.fromEntries(servers.map((server) => [server.name, server]));
  assert.equal(byName.kit.state, "connected", JSON.stringify(byName.kit));
  assert.equal(byName.kit.scope, "project");
  assert.equal(typeof byName.kit.latencyMs, "number");
  assert.ok(byName.kit.tools.some((tool) => tool.name === "echo" && tool.inputSchema.type === "object"));
  assert.ok(byName.kit.resources.some((resource) => resource.uri === "docs://readme"));
  assert.ok(byName.kit.prompts.some((prompt) => prompt.name === "review"));
  assert.equal(byName.other.state, "pending approval");
  assert.match(byName.other.error!, /enabledMcpjsonServers/);
  assert.ok(!JSON.stringify(servers).includes("kit-secret-0123456789"));

  // Its process is gone once the answer is sent.
  assert.deepEqual(processesWith("kit-secret-0123456789"), []);

  // Approved as another entry, it waits as well.
  const changed = await client.probeMcp({ mcpApprovals: [{ name: "kit", entry: mcpEntryFingerprint({ command: "else" }) }] }, never());
  assert.equal(changed.servers.find((server) => server.name === "kit")?.state, "pending approval");
});

test("a bad body is 400 naming the field; a backend that starts no server is 501; a busy runner is 409; a probe out of time is 504", async (t) => {
  const { url } = await runnerIn(t, {});
  const bad = await post(`${url}/mcp/probe`, { timeoutMs: 5 });
  assert.equal(bad.status, 400);
  assert.match(bad.body.error!, /timeoutMs/);
  const unknown = await post(`${url}/mcp/probe`, { server: "kit" });
  assert.equal(unknown.status, 400);

  const plain = await startRunner(t, { workspace: tempDir(t), backend: fakeBackend((_query, ctx) => waitForAbort(ctx)) });
  assert.equal((await post(`${plain.url}/mcp/probe`, {})).status, 501);

  const held = fakeBackend((_query, ctx) => waitForAbort(ctx), { probeMcp: (_probe, ctx) => new Promise((_resolve, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true })) });
  const slow = await startRunner(t, { workspace: tempDir(t), backend: held });
  const run = new AbortController();
  const events = collect(slow.client.query({ prompt: "hold" }, { signal: run.signal })).catch((error: unknown) => error);
  await waitFor(async () => held.runs.length > 0, "the run to start");
  const busy = await slow.client.probeMcp({}, never()).catch((error: unknown) => error);
  assert.ok(busy instanceof RunnerHttpError && busy.status === 409, String(busy));
  run.abort();
  await events;
  const late = await slow.client.probeMcp({ timeoutMs: 200 }, never()).catch((error: unknown) => error);
  assert.ok(late instanceof RunnerHttpError && late.status === 504, String(late));
  assert.match((late as RunnerHttpError).message, /200 ms/);
});
