// The Open Harness MCP domain, asked of the servers themselves: the session's runner starts the
// servers its settings configure (as a run would), asks them what they offer and pings them, then
// stops them. Listing goes by the configuration now, with each server's status.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { mcpTestServerCommand } from "@harness/test-utils";
import { startHarness, type Harness } from "./e2e-commands-support.ts";
import { apiAs, executionWhen, V1, type Api } from "./open-harness-support.ts";

const SECRET = "sekrit-value-0123456789";
let h: Harness;
let api: Api;
let q: string;
let sessionId: string;

before(async () => {
  h = await startHarness();
  api = apiAs(h.server.url);
  const home = join(h.dataDir, "home");
  await mkdir(join(home, ".claude"), { recursive: true });
  await writeFile(join(home, ".claude", "settings.json"), JSON.stringify({ deniedMcpServers: [{ serverName: "banned" }] }));
  await writeFile(join(home, ".claude.json"), JSON.stringify({ mcpServers: { broken: { command: "/nonexistent/mcp-server" }, banned: mcpTestServerCommand() } }));
  const { session } = await (await api(`${V1}/sessions`, { method: "POST", body: "{}" })).json();
  sessionId = session.id;
  q = `?session_id=${sessionId}`;
  await api(`${V1}/files/.mcp.json${q}`, { method: "PUT", body: JSON.stringify({ mcpServers: { theirs: mcpTestServerCommand() } }) });
  const { command, args } = mcpTestServerCommand({ resources: true, prompts: true });
  const connected = await api(`${V1}/mcp-servers${q}`, { method: "POST", body: JSON.stringify({ name: "kit", transport: { type: "stdio", command, args, env: { KIT_TOKEN: SECRET } } }) });
  assert.equal(connected.status, 201);
});
after(() => h.close());

const health = (name: string, body = "") => api(`${V1}/mcp-servers/${name}/health${q}`, { method: "POST", body });

test("the servers the settings configure now are listed before any run, each with its status and why a run would not start it", async () => {
  const listed = await api(`${V1}/mcp-servers${q}`);
  const text = await listed.text();
  assert.ok(!text.includes(SECRET), text);
  const { data, total } = JSON.parse(text);
  const byName = Object.fromEntries(data.map((server: { name: string }) => [server.name, server]));
  assert.equal(total, 4);
  assert.equal(byName.kit.harness_status, "pending");
  assert.equal(byName.kit.transport.type, "stdio");
  assert.equal(byName.broken.harness_status, "pending");
  assert.equal(byName.theirs.harness_status, "pending approval");
  assert.match(byName.theirs.warning, /not approved/);
  assert.equal(byName.banned.harness_status, "disabled by policy");
  assert.match(byName.banned.warning, /deniedMcpServers/);
  const disconnected = await (await api(`${V1}/mcp-servers${q}&status=disconnected`)).json();
  assert.equal(disconnected.total, 4);
});

test("health starts the server on the session's runner and answers with its real status", async () => {
  const kit = await health("kit");
  assert.equal(kit.status, 200);
  const answer = await kit.json();
  assert.equal(answer.status, "healthy", JSON.stringify(answer));
  assert.equal(answer.harness_status, "connected");
  assert.equal(typeof answer.latency_ms, "number");
  assert.equal(answer.last_error, undefined);

  const broken = await (await health("broken")).json();
  assert.equal(broken.status, "unhealthy");
  assert.equal(broken.harness_status, "failed");
  assert.ok(broken.last_error.length > 0);

  const theirs = await (await health("theirs")).json();
  assert.deepEqual({ ...theirs, last_error: undefined }, { status: "unhealthy", latency_ms: 0, harness_status: "pending approval", last_error: undefined });
  assert.match(theirs.last_error, /not approved/);
  assert.equal((await (await health("banned")).json()).harness_status, "disabled by policy");

  const missing = await health("nope");
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "mcp_server_not_found");
  const bad = await health("kit", JSON.stringify({ deep: true }));
  assert.equal(bad.status, 400);
  assert.match((await bad.json()).error.message, /deep/);
  assert.equal((await api(`${V1}/mcp-servers/kit/health`, { method: "POST" })).status, 400);
});

test("a started server's tools (with descriptions and input schemas), resources and prompts are the server's own; a server not started is refused saying why", async () => {
  const tools = await (await api(`${V1}/mcp-servers/kit/tools${q}`)).json();
  const add = tools.tools.find((tool: { name: string }) => tool.name === "add");
  assert.ok(add, JSON.stringify(tools));
  assert.ok(add.description.length > 0);
  assert.equal(add.input_schema.type, "object");
  assert.ok("a" in add.input_schema.properties, JSON.stringify(add.input_schema));

  const { resources } = await (await api(`${V1}/mcp-servers/kit/resources${q}`)).json();
  assert.deepEqual(
    resources.find((r: { uri: string }) => r.uri === "docs://readme"),
    { uri: "docs://readme", name: "readme", mime_type: "text/markdown" },
  );
  const { prompts } = await (await api(`${V1}/mcp-servers/kit/prompts${q}`)).json();
  const review = prompts.find((p: { name: string }) => p.name === "review");
  assert.equal(review.description, "Review a file.");
  assert.deepEqual(review.arguments.map((a: { name: string; required: boolean }) => [a.name, a.required]), [["file", true], ["focus", false]]);

  const theirs = await api(`${V1}/mcp-servers/theirs/resources${q}`);
  assert.equal(theirs.status, 409);
  assert.match((await theirs.json()).error.message, /pending approval/);
  const broken = await api(`${V1}/mcp-servers/broken/prompts${q}`);
  assert.equal(broken.status, 502);
  assert.equal((await broken.json()).error.code, "mcp_server_failed");
});

test("the tools list has the MCP tools of the servers now, with what the servers say of them", async () => {
  const listed = await (await api(`${V1}/tools${q}&source=mcp&limit=100`)).json();
  const add = listed.data.find((tool: { id: string }) => tool.id === "mcp__kit__add");
  assert.ok(add, JSON.stringify(listed.data.map((tool: { id: string }) => tool.id)));
  assert.equal(add.source_id, "kit");
  assert.equal(add.input_schema.type, "object");
  assert.ok(add.description.length > 0);
  assert.ok(!listed.data.some((tool: { id: string }) => tool.id.startsWith("mcp__theirs__") || tool.id.startsWith("mcp__banned__")));
  const one = await (await api(`${V1}/tools/mcp__kit__add${q}`)).json();
  assert.deepEqual(one.tool, add);
});

test("while a run is under way, the servers are not asked (409); listing still answers, with the last run's statuses after it", async () => {
  let release!: () => void;
  h.fake.push({ text: "Working.", hold: new Promise<void>((resolve) => (release = resolve)) });
  const started = await (await api(`${V1}/execute`, { method: "POST", body: JSON.stringify({ message: "hello", session_id: sessionId }) })).json();
  await executionWhen(api, started.execution_id, (e) => e.status === "running", "running");
  const during = await health("kit");
  assert.equal(during.status, 409);
  assert.match((await during.json()).error.message, /a run is under way/);
  assert.equal((await api(`${V1}/mcp-servers/kit/resources${q}`)).status, 409);
  assert.equal((await api(`${V1}/tools${q}`)).status, 200);
  release();
  await executionWhen(api, started.execution_id, (e) => e.status === "completed", "completed");

  const { data } = await (await api(`${V1}/mcp-servers${q}`)).json();
  const byName = Object.fromEntries(data.map((server: { name: string }) => [server.name, server]));
  assert.equal(byName.kit.harness_status, "connected");
  assert.equal(byName.kit.status, "connected");
  assert.equal(byName.broken.status, "error");
  assert.equal(byName.theirs.harness_status, "pending approval");
});
