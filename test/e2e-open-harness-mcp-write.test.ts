// The Open Harness MCP domain, written: servers connected, changed and disconnected over the API land
// in the workspace's .mcp.json, and the session's next run starts them once they are approved.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { mcpTestServerCommand } from "@harness/test-utils";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, readSse, V1, type Api } from "./open-harness-support.ts";

/** The names of the tools the model was offered in the session's run for `message`. */
async function toolsOfRun(h: Harness, api: Api, sessionId: string, message: string): Promise<string[]> {
  h.fake.push({ text: "Ready." });
  await readSse(await api(`${V1}/execute/stream`, { method: "POST", body: JSON.stringify({ message, session_id: sessionId }) }));
  return (h.fake.requests.at(-1)!.body.tools as { name: string }[]).map((tool) => tool.name);
}

async function userSettings(h: Harness, settings: unknown): Promise<void> {
  await mkdir(join(h.dataDir, "home", ".claude"), { recursive: true });
  await writeFile(join(h.dataDir, "home", ".claude", "settings.json"), JSON.stringify(settings));
}

test("an MCP server connected over the API is approved for its session: the next run has its tools, renamed it keeps them, changed by anyone else or disconnected it is gone", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const { command, args } = mcpTestServerCommand();
    // A server the repository brings waits for the user's approval, as before.
    const other = { command, args, env: { LEVEL: "1" }, note: "kept" };
    await api(`${V1}/files/.mcp.json${q}`, { method: "PUT", body: JSON.stringify({ mcpServers: { other } }) });

    const connected = await api(`${V1}/mcp-servers${q}`, { method: "POST", body: JSON.stringify({ name: "tools", transport: { type: "stdio", command, args } }) });
    assert.equal(connected.status, 201);
    const { server } = await connected.json();
    assert.deepEqual(server, { id: "tools", name: "tools", transport: { type: "stdio", command, args }, status: "disconnected", harness_status: "pending", tools: [], resources: [], prompts: [] });
    const file = join(h.workspace("alice", session.id), ".mcp.json");
    assert.deepEqual(JSON.parse(await readFile(file, "utf8")), { mcpServers: { other, tools: { type: "stdio", command, args } } });
    // Nothing in the workspace says it is approved: the approval is the server's.
    assert.deepEqual(await readdir(h.workspace("alice", session.id)), [".mcp.json"]);

    const first = await toolsOfRun(h, api, session.id, "hello");
    assert.ok(first.includes("mcp__tools__progress"), first.join(" "));
    assert.ok(!first.some((tool) => tool.startsWith("mcp__other__")));
    assert.equal((await (await api(`${V1}/mcp-servers/tools${q}`)).json()).server.status, "connected");

    const renamed = await api(`${V1}/mcp-servers/tools${q}`, { method: "PATCH", body: JSON.stringify({ name: "kit" }) });
    assert.equal(renamed.status, 200);
    const kit = (await renamed.json()).server;
    assert.equal(kit.id, "kit");
    assert.equal(kit.harness_status, "pending");
    assert.deepEqual(Object.keys(JSON.parse(await readFile(file, "utf8")).mcpServers), ["other", "kit"]);
    assert.ok((await toolsOfRun(h, api, session.id, "again")).includes("mcp__kit__progress"));

    // Renaming the repository's server approves nothing; giving it a transport does.
    assert.equal((await (await api(`${V1}/mcp-servers/other${q}`, { method: "PATCH", body: JSON.stringify({ name: "theirs" }) })).json()).server.harness_status, "pending approval");
    assert.equal((await (await api(`${V1}/mcp-servers/theirs${q}`, { method: "PATCH", body: JSON.stringify({ transport: { type: "stdio", command, args } }) })).json()).server.harness_status, "pending");
    assert.ok((await toolsOfRun(h, api, session.id, "theirs")).includes("mcp__theirs__progress"));

    // The entry changed behind the API's back (as the agent could) is no longer the one approved.
    const changed = JSON.parse(await readFile(file, "utf8"));
    changed.mcpServers.kit.args = [...args, "--prompts"];
    await writeFile(file, JSON.stringify(changed));
    const afterChange = await toolsOfRun(h, api, session.id, "changed");
    assert.ok(!afterChange.some((tool) => tool.startsWith("mcp__kit__")), afterChange.join(" "));

    assert.equal((await api(`${V1}/mcp-servers/kit${q}`, { method: "DELETE" })).status, 204);
    assert.deepEqual(Object.keys(JSON.parse(await readFile(file, "utf8")).mcpServers), ["theirs"]);
    assert.equal((await api(`${V1}/mcp-servers/kit${q}`, { method: "DELETE" })).status, 404);
    // Written again by hand exactly as it was approved, a disconnected server waits for approval.
    changed.mcpServers = { kit: { type: "stdio", command, args } };
    await writeFile(file, JSON.stringify(changed));
    assert.ok(!(await toolsOfRun(h, api, session.id, "gone")).some((tool) => tool.startsWith("mcp__kit__")));
  } finally {
    await h.close();
  }
});

test("a fork of a session has the MCP servers its source's caller approved", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const connected = await api(`${V1}/mcp-servers?session_id=${session.id}`, { method: "POST", body: JSON.stringify({ name: "tools", transport: { type: "stdio", ...mcpTestServerCommand() } }) });
    assert.equal(connected.status, 201);
    const forked = await api(`/sessions/${session.id}/fork`, { method: "POST", body: JSON.stringify({ userId: "alice" }) });
    assert.equal(forked.status, 201);
    const { sessionId } = await forked.json();
    assert.ok((await toolsOfRun(h, api, sessionId, "in the fork")).includes("mcp__tools__progress"));
  } finally {
    await h.close();
  }
});

test("MCP servers the API does not write, or that the runs would refuse, are refused with what is wrong", async () => {
  const h = await startHarness();
  const api = apiAs(h.server.url);
  try {
    await userSettings(h, { deniedMcpServers: [{ serverName: "banned" }] });
    await writeFile(join(h.dataDir, "home", ".claude.json"), JSON.stringify({ mcpServers: { mine: { command: "my-server" } } }));
    const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
    const q = `?session_id=${session.id}`;
    const refused = async (response: Response, status: number, pattern: RegExp) => {
      const { error } = await response.json();
      assert.equal(response.status, status, error.message);
      assert.match(error.message, pattern);
    };
    const connect = (body: unknown) => api(`${V1}/mcp-servers${q}`, { method: "POST", body: JSON.stringify(body) });
    const stdio = { type: "stdio", command: "echo" };

    await refused(await connect({ name: "web", transport: { type: "http", url: "ftp://mcp.example" } }), 400, /http or https URL/);
    await refused(await connect({ name: "bad name", transport: stdio }), 400, /name/);
    await refused(await connect({ name: "web", transport: { type: "websocket", url: "wss://mcp.example" } }), 400, /transport/);
    await refused(await connect({ name: "web", transport: stdio, auto_reconnect: false }), 501, /auto_reconnect/);
    await refused(await connect({ name: "banned", transport: stdio }), 403, /policy/);
    await refused(await api(`${V1}/mcp-servers/mine${q}`, { method: "PATCH", body: JSON.stringify({ transport: stdio }) }), 403, /user's configuration/);
    await refused(await api(`${V1}/mcp-servers/mine${q}`, { method: "DELETE" }), 403, /user's configuration/);
    await refused(await api(`${V1}/mcp-servers/nope${q}`, { method: "DELETE" }), 404, /no MCP server "nope"/);

    const web = await connect({ name: "web", transport: { type: "http", url: "https://mcp.example/mcp", headers: { "X-Team": "core" } } });
    assert.equal(web.status, 201);
    assert.equal((await web.json()).server.harness_status, "pending");
    await refused(await connect({ name: "web", transport: stdio }), 409, /already/);
    await refused(await api(`${V1}/mcp-servers/web${q}`, { method: "PATCH", body: JSON.stringify({ transport: { type: "sse", url: "" } }) }), 400, /url/);

    await api(`${V1}/files/.mcp.json${q}`, { method: "PUT", body: "{ not json" });
    await refused(await connect({ name: "other", transport: stdio }), 409, /\.mcp\.json is not valid JSON/);
    assert.equal(await readFile(join(h.workspace("alice", session.id), ".mcp.json"), "utf8"), "{ not json");
  } finally {
    await h.close();
  }
});
