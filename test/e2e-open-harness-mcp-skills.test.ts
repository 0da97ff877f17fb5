// The Open Harness MCP and skills domains, listed: the MCP servers a session's settings configure,
// with the status its last run reported (run.ready), and the skills with what their files say.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { mcpTestServerCommand } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1 } from "./open-harness-support.ts";

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nDo the ${name} thing.\n`;

test("a session's MCP servers and skills are listed as its runs have them: its servers pending before the first run, then connected with their tools, and its skills", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(join(home, ".claude", "skills", "review"), { recursive: true });
    await writeFile(join(home, ".claude", "skills", "review", "SKILL.md"), skill("review", "Reviews a change"));
    await writeFile(join(home, ".claude.json"), JSON.stringify({ mcpServers: { tools: mcpTestServerCommand() } }));
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    assert.equal((await api(`${V1}/files/.claude/skills/greet/SKILL.md${q}`, { method: "PUT", body: skill("greet", "Greets the user") })).status, 201);

    const before = await (await api(`${V1}/mcp-servers${q}`)).json();
    assert.deepEqual(before, {
      data: [{ id: "tools", name: "tools", transport: { type: "stdio", ...mcpTestServerCommand() }, status: "disconnected", harness_status: "pending", tools: [], resources: [], prompts: [] }],
      total: 1,
      limit: 20,
      offset: 0,
      has_more: false,
    });

    h.fake.push({ text: "Ready." });
    await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "hello", session_id: session.id }) }));

    const servers = await (await api(`${V1}/mcp-servers${q}`)).json();
    assert.equal(servers.total, 1);
    const [server] = servers.data;
    assert.equal(server.id, "tools");
    assert.equal(server.name, "tools");
    assert.equal(server.status, "connected");
    assert.ok(server.tools.some((tool: { name: string }) => tool.name === "progress"), JSON.stringify(server.tools));
    assert.deepEqual((await (await api(`${V1}/mcp-servers/tools${q}`)).json()).server, server);
    const asked = (await (await api(`${V1}/mcp-servers/tools/tools${q}`)).json()).tools;
    assert.deepEqual(asked.map((tool: { name: string }) => tool.name).sort(), server.tools.map((tool: { name: string }) => tool.name).sort());
    const missing = await api(`${V1}/mcp-servers/nope${q}`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, "mcp_server_not_found");
    assert.equal((await (await api(`${V1}/mcp-servers${q}&status=error`)).json()).total, 0);

    const skills = await (await api(`${V1}/skills${q}`)).json();
    const byName = new Map(skills.data.map((s: { name: string }) => [s.name, s]));
    assert.deepEqual(byName.get("greet"), { id: "greet", name: "greet", description: "Greets the user", version: "", vendor: "", category: "user", scope: "project", created_at: (byName.get("greet") as { created_at: string }).created_at, updated_at: (byName.get("greet") as { updated_at: string }).updated_at });
    assert.equal((byName.get("review") as { description: string; scope: string }).description, "Reviews a change");
    assert.equal((byName.get("review") as { scope: string }).scope, "user");
    assert.equal((await (await api(`${V1}/skills/greet${q}`)).json()).skill.description, "Greets the user");
    assert.equal((await api(`${V1}/skills/nope${q}`)).status, 404);

    const noSession = await api(`${V1}/skills`);
    assert.equal(noSession.status, 400);
    assert.match((await noSession.json()).error.message, /session_id/);
    assert.equal((await api(`${V1}/mcp-servers${q}`, { headers: { "x-harness-user": "bob" } })).status, 404);
    const health = await api(`${V1}/mcp-servers/tools/health`, { method: "POST", body: "{}" });
    assert.equal(health.status, 400);
    assert.match((await health.json()).error.message, /session_id/);
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.deepEqual(caps.mcp.operations, ["mcp.list", "mcp.get", "mcp.listTools", "mcp.listResources", "mcp.listPrompts", "mcp.health", "mcp.connect", "mcp.update", "mcp.disconnect"]);
    assert.deepEqual(caps.skills.operations.slice(0, 2), ["skills.list", "skills.get"]);
  } finally {
    await h.close();
  }
});
