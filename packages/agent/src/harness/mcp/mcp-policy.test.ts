// The managed MCP policy: deniedMcpServers, allowedMcpServers, allowManagedMcpServersOnly.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mcpTestServerCommand } from "@harness/test-utils";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";

/** `.mcp.json` servers "x" (the MCP test server) and "y" (the same with one more argument), both
 * approved as Claude Code records it. */
async function twoServers(project: TempProject): Promise<{ xCommand: string[] }> {
  const x = mcpTestServerCommand();
  const y = mcpTestServerCommand({ extraTools: 1 });
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { x, y } }));
  await project.writeHome(".claude.json", JSON.stringify({ projects: { [project.root]: { enabledMcpjsonServers: ["x", "y"] } } }));
  return { xCommand: [x.command, ...x.args] };
}

async function serversUsed(project: TempProject): Promise<{ servers: string[]; notices: string[] }> {
  const { provider, events } = await runInProject(project, [{ text: "Done." }]);
  const servers = new Set((provider.requests[0].tools ?? []).flatMap((tool) => /^mcp__([^_]+)__/.exec(tool.name)?.[1] ?? []));
  return { servers: [...servers].sort(), notices: events.flatMap((e) => (e.type === "notice" && e.level === "warning" ? [e.message] : [])) };
}

test("a server the managed settings deny is not started, and the run says why", async (t) => {
  const project = await tempProject(t);
  await twoServers(project);
  await project.writeHome("managed-settings.json", JSON.stringify({ deniedMcpServers: [{ serverName: "y" }] }));

  const { servers, notices } = await serversUsed(project);
  assert.deepEqual(servers, ["x"]);
  assert.ok(notices.includes(`MCP server "y" of ${project.root}/.mcp.json is not started: it is listed in deniedMcpServers.`), notices.join("\n"));
});

test("with allowManagedMcpServersOnly only the managed allowlist counts; stdio servers are matched by their command", async (t) => {
  const project = await tempProject(t);
  const { xCommand } = await twoServers(project);
  await project.writeHome("managed-settings.json", JSON.stringify({ allowManagedMcpServersOnly: true, allowedMcpServers: [{ serverCommand: xCommand }] }));
  await project.settings({ allowedMcpServers: [{ serverName: "y" }] }, "user");

  const { servers, notices } = await serversUsed(project);
  assert.deepEqual(servers, ["x"]);
  assert.ok(notices.includes(`MCP server "y" of ${project.root}/.mcp.json is not started: allowedMcpServers does not list its command.`), notices.join("\n"));
});

test("a project's settings cannot widen the allowlist; an empty managed allowlist runs no server", async (t) => {
  const project = await tempProject(t);
  await twoServers(project);
  await project.writeHome("managed-settings.json", JSON.stringify({ allowedMcpServers: [] }));
  await project.settings({ allowedMcpServers: [{ serverName: "x" }, { serverName: "y" }] });

  const { servers } = await serversUsed(project);
  assert.deepEqual(servers, []);
});

test("a managed-mcp.json beside the managed settings decides alone which servers run; one that cannot be read starts none", async (t) => {
  const project = await tempProject(t);
  await twoServers(project);
  await project.writeHome("managed-mcp.json", JSON.stringify({ mcpServers: { company: mcpTestServerCommand() } }));
  assert.deepEqual((await serversUsed(project)).servers, ["company"], "the project's approved servers are not started");

  for (const [text, why] of [["{ not json", /managed-mcp\.json/], ['{"mcpServers": []}', /"mcpServers" must be an object/]] as const) {
    await project.writeHome("managed-mcp.json", text);
    const { servers, notices } = await serversUsed(project);
    assert.deepEqual(servers, [], text);
    assert.ok(notices.some((n) => why.test(n) && /as the machine's managed MCP configuration, it still keeps every other MCP server from starting/.test(n)), notices.join("\n"));
  }
});
