// The Open Harness tools domain: the tools a session's runs offer the model, with the
// descriptions and input schemas the model gets, and its MCP servers' tools by name.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { mcpTestServerCommand } from "@harness/test-utils";
import { startHarness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1 } from "./open-harness-support.ts";

type Tool = { id: string; name: string; description: string; source: string; source_id?: string; input_schema: Record<string, unknown> };

test("a session's tools are those its runs offer the model: before the first run the built-in ones its settings leave, after it the very descriptions and schemas the model got, its MCP servers' tools among them (asked of the servers before the first run too)", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const home = join(h.dataDir, "home");
    await mkdir(home, { recursive: true });
    await writeFile(join(home, ".claude.json"), JSON.stringify({ mcpServers: { tools: mcpTestServerCommand() } }));
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    assert.equal((await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify({ permissions: { deny: ["WebFetch"] } }) })).status, 201);

    const before = await (await api(`${V1}/tools${q}&limit=100`)).json();
    const names = before.data.map((tool: Tool) => tool.name);
    for (const name of ["Read", "Bash", "Glob", "TodoWrite", "ExitPlanMode", "Task"]) assert.ok(names.includes(name), `${name} in ${names}`);
    assert.ok(!names.includes("WebFetch"), "a tool the settings deny is not offered");
    // The servers are asked before any run has started them.
    const progress = before.data.find((tool: Tool) => tool.name === "mcp__tools__progress");
    assert.equal(progress?.source, "mcp", JSON.stringify(names));
    assert.equal(progress.source_id, "tools");
    assert.equal((progress.input_schema as { type: string }).type, "object");
    const read = before.data.find((tool: Tool) => tool.name === "Read");
    assert.equal(read.id, "Read");
    assert.match(read.description, /file/i);
    assert.equal((read.input_schema.properties as Record<string, unknown>).file_path !== undefined, true);
    assert.deepEqual((await (await api(`${V1}/tools/Read${q}`)).json()).tool, read);

    h.fake.push({ text: "Ready." });
    await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "hello", session_id: session.id }) }));
    const offered = h.fake.requests.at(-1)!.body.tools as { name: string; description: string; input_schema: unknown }[];

    const after = await (await api(`${V1}/tools${q}&limit=100`)).json();
    const byName = new Map<string, Tool>(after.data.map((tool: Tool) => [tool.name, tool]));
    assert.deepEqual(after.data.map((tool: Tool) => tool.name), offered.map((tool) => tool.name), "the tools, in the order the model is offered them");
    for (const tool of offered) {
      const listed = byName.get(tool.name)!;
      if (tool.name.startsWith("mcp__")) {
        assert.deepEqual(listed, { id: tool.name, name: tool.name, description: tool.description, source: "mcp", source_id: "tools", input_schema: tool.input_schema });
      } else {
        assert.equal(listed.source, "builtin");
        assert.equal(listed.description, tool.description, `${tool.name}'s description`);
        assert.deepEqual(listed.input_schema, tool.input_schema, `${tool.name}'s input schema`);
      }
    }
    const mcp = await (await api(`${V1}/tools${q}&source=mcp`)).json();
    assert.ok(mcp.total > 0);
    assert.ok(mcp.data.every((tool: Tool) => tool.source === "mcp"));
    assert.equal((await (await api(`${V1}/tools${q}&limit=2&offset=1`)).json()).data.length, 2);

    const bad = await api(`${V1}/tools${q}&source=plugin`);
    assert.equal(bad.status, 400);
    assert.match((await bad.json()).error.message, /source/);
    const missing = await api(`${V1}/tools/Nope${q}`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, "tool_not_found");
    const noSession = await api(`${V1}/tools`);
    assert.equal(noSession.status, 400);
    assert.match((await noSession.json()).error.message, /session_id/);
    const bobs = await api(`${V1}/tools${q}`, { headers: { "x-harness-user": "bob" } });
    assert.equal(bobs.status, 404);
    assert.equal((await bobs.json()).error.code, "session_not_found");
    assert.equal((await api(`/v1/harnesses/other/tools${q}`)).status, 404);
    // Registering takes a tool; a built-in tool cannot be unregistered.
    const unnamed = await api(`${V1}/tools${q}`, { method: "POST", body: "{}" });
    assert.equal(unnamed.status, 400);
    assert.match((await unnamed.json()).error.message, /name/);
    const builtin = await api(`${V1}/tools/Read${q}`, { method: "DELETE" });
    assert.equal(builtin.status, 404);
    assert.equal((await builtin.json()).error.operation, "tools.unregister");
    const caps = (await (await api(`${V1}/capabilities`)).json()).capabilities;
    assert.deepEqual(caps.tools.operations, ["tools.list", "tools.get", "tools.register", "tools.unregister", "tools.invoke", "tools.invokeStream"]);

    const diagnostics = await api(`${V1}/diagnostics`);
    assert.equal(diagnostics.status, 200);
    const text = await diagnostics.text();
    const d = JSON.parse(text);
    const { harness } = await (await api(V1)).json();
    assert.equal(d.harness_id, "harness");
    assert.equal(d.version, harness.version);
    assert.ok(Number.isInteger(d.uptime_seconds) && d.uptime_seconds >= 0);
    assert.ok(d.memory_usage_mb > 0);
    assert.equal(d.active_sessions, 1, "the session just run is in memory");
    assert.equal(d.active_executions, 0);
    assert.equal(d.connected_mcp_servers, 1);
    assert.equal(d.status, "serving");
    assert.deepEqual(d.database, { status: "pass" });
    assert.equal(d.config.backend, "builtin");
    assert.equal(d.config.auth, "none");
    assert.ok(d.runner_processes >= 1);
    assert.ok(!text.includes(h.dataDir), "no path of the server's is shown");
    assert.ok(!text.includes("test-key"), "no credential is shown");
    assert.equal((await api(`/v1/harnesses/other/diagnostics`)).status, 404);
    assert.deepEqual((await (await api(`${V1}/capabilities`)).json()).capabilities.diagnostics.operations, ["diagnostics.get", "diagnostics.logs", "diagnostics.streamLogs"]);
  } finally {
    await h.close();
  }
});

test("with the claude-code backend, whose tools are Claude Code's own, no tool is listed before a session's first run", async () => {
  const h = await startHarness({}, { HARNESS_BACKEND: "claude-code" });
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    assert.deepEqual(await (await api(`${V1}/tools?session_id=${session.id}`)).json(), { data: [], total: 0, limit: 20, offset: 0, has_more: false });
    assert.equal((await (await api(`${V1}/diagnostics`)).json()).config.backend, "claude-code");
  } finally {
    await h.close();
  }
});

test("a session whose settings run the main thread as an agent lists that agent's tools before its first run, as the run then offers them", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const agent = "---\nname: reader\ndescription: Reads files.\ntools: Read, Grep, Agent(reader)\n---\nYou read.\n";
    assert.equal((await api(`${V1}/files/.claude/agents/reader.md${q}`, { method: "PUT", body: agent })).status, 201);
    assert.equal((await api(`${V1}/files/.claude/settings.json${q}`, { method: "PUT", body: JSON.stringify({ agent: "reader" }) })).status, 201);
    const before = (await (await api(`${V1}/tools${q}&limit=100`)).json()).data as Tool[];

    h.fake.push({ text: "Ready." });
    await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message: "hello", session_id: session.id }) }));
    const offered = h.fake.requests.at(-1)!.body.tools as { name: string; description: string; input_schema: unknown }[];
    assert.deepEqual(before.map((tool) => tool.name), offered.map((tool) => tool.name));
    assert.deepEqual(before.map((tool) => tool.description), offered.map((tool) => tool.description));
  } finally {
    await h.close();
  }
});
