import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { mcpTestServerCommand } from "@harness/test-utils";
import { processGone, systemText, waitFor, withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";
import { createAgentResources } from "../resources.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

/** A `.mcp.json` server "x", approved as Claude Code records it (the project's entry of ~/.claude.json). */
async function withMcpServer(project: TempProject, options: { extraTools?: number } = {}): Promise<void> {
  const { command, args } = mcpTestServerCommand(options);
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { x: { command, args } } }));
  await approve(project, ["x"]);
}

async function approve(project: TempProject, names: string[]): Promise<void> {
  await project.writeHome(".claude.json", JSON.stringify({ projects: { [project.root]: { enabledMcpjsonServers: names } } }));
}

test("a stdio MCP server from .mcp.json: its tools are called as mcp__x__<tool>, with the settings' rules", async (t) => {
  const project = await tempProject(t);
  await withMcpServer(project);
  await project.settings({ permissions: { allow: ["mcp__x__echo"] } });
  const { provider, result, events } = await runInProject(project, [
    {
      toolCalls: [
        { id: "toolu_echo", name: "mcp__x__echo", input: { text: "over the wire" } },
        { id: "toolu_add", name: "mcp__x__add", input: { a: 1, b: 2 } },
      ],
    },
    { text: "Echoed." },
  ]);

  assert.equal(result.stopReason, "end_turn");
  const names = provider.requests[0].tools?.map((tool) => tool.name) ?? [];
  assert.ok(names.includes("mcp__x__echo") && names.includes("mcp__x__add"), names.join(", "));
  const [echo, add] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.deepEqual(echo, { type: "tool_result", tool_use_id: "toolu_echo", content: "over the wire" });
  assert.equal(add.is_error, true, "no rule allows mcp__x__add and nobody can approve it");
  assert.match(String(add.content), /not granted/);
  assert.ok(events.some((e) => e.type === "notice" && e.level === "info" && /MCP server x connected/.test(e.message)));
});

test("with many MCP tools they are deferred: the model finds one with ToolSearch and then calls it", async (t) => {
  const project = await tempProject(t);
  await withMcpServer(project, { extraTools: 60 });
  const { provider, result } = await runInProject(
    project,
    [
      { toolCalls: [{ id: "toolu_search", name: "ToolSearch", input: { query: "select:mcp__x__echo" } }] },
      { toolCalls: [{ id: "toolu_echo", name: "mcp__x__echo", input: { text: "found you" } }] },
      { text: "Done." },
    ],
    { permissionMode: "bypassPermissions" },
  );

  assert.equal(result.stopReason, "end_turn");
  const [first, second] = provider.requests;
  const firstNames = first.tools?.map((tool) => tool.name) ?? [];
  assert.ok(firstNames.includes("ToolSearch"));
  assert.ok(!firstNames.some((name) => name.startsWith("mcp__")), firstNames.join(", "));
  assert.match(systemText(first), /<available-deferred-tools>[\s\S]*mcp__x__dummy_60: Dummy tool number 60/);
  assert.ok(second.tools?.some((tool) => tool.name === "mcp__x__echo"), "loaded for the following request");
  const [echo] = resultsIn(withoutCacheMarks(provider.requests[2].messages).at(-1));
  assert.equal(echo.content, "found you");
});

test("resources keep an MCP server running across runs, and dispose of it at the end", async (t) => {
  const project = await tempProject(t);
  await withMcpServer(project);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const askPid = [{ toolCalls: [{ id: "toolu_pid", name: "mcp__x__pid" }] }, { text: "ok" }];
  const pidOf = async () => {
    const { provider } = await runInProject(project, askPid, { resources, permissionMode: "bypassPermissions" });
    return Number(resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1))[0].content);
  };

  const first = await pidOf();
  const second = await pidOf();
  assert.ok(first > 0);
  assert.equal(second, first, "the same server process served both runs");
  await resources.dispose();
  await waitFor(async () => ((await processGone(first)) ? true : undefined), "the MCP server to stop");
});

test("a run without resources stops its MCP servers when it ends", async (t) => {
  const project = await tempProject(t);
  await withMcpServer(project);
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_pid", name: "mcp__x__pid" }] }, { text: "ok" }], { permissionMode: "bypassPermissions" });
  const pid = Number(resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1))[0].content);
  assert.ok(pid > 0);
  await waitFor(async () => ((await processGone(pid)) ? true : undefined), "the MCP server to stop");
});

test("a server that cannot start is a notice, and the run goes on without it", async (t) => {
  const project = await tempProject(t);
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { broken: { command: "/nonexistent/mcp-server" } } }));
  await approve(project, ["broken"]);
  const { result, events } = await runInProject(project, [{ text: "fine" }]);
  assert.equal(result.stopReason, "end_turn");
  assert.ok(events.some((e) => e.type === "notice" && e.level === "error" && /MCP server broken failed/.test(e.message)));
});

test("a .mcp.json server the repository approves for itself is not started: it says how to approve it", async (t) => {
  const project = await tempProject(t);
  const marker = `${project.root}/STARTED`;
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { planted: { command: "sh", args: ["-c", `touch ${marker}`] } } }));
  // The project's own files approve nothing: they come with the repository.
  await project.settings({ enableAllProjectMcpServers: true, enabledMcpjsonServers: ["planted"] });
  await project.settings({ enabledMcpjsonServers: ["planted"] }, "local");
  const { events } = await runInProject(project, [{ text: "hi" }]);
  assert.equal(await project.exists("STARTED"), false, "the server's command never ran");
  const said = events.filter((e) => e.type === "notice").map((e) => (e as { message: string }).message);
  assert.ok(
    said.some((m) => /MCP server "planted" of .*\.mcp\.json is not started: not approved: .*~\/\.claude\/settings\.json.*~\/\.claude\.json/.test(m)),
    said.join("\n"),
  );

  // Nor can they define a server of their own.
  await project.settings({ mcpServers: { sneaky: { command: "sh", args: ["-c", `touch ${project.root}/SNEAKY`] } } });
  const again = await runInProject(project, [{ text: "hi" }]);
  assert.equal(await project.exists("SNEAKY"), false);
  assert.ok(again.events.some((e) => e.type === "notice" && /cannot define MCP servers/.test(e.message)));

  // The user's settings approve it.
  await project.settings({ enabledMcpjsonServers: ["planted"] }, "user");
  await runInProject(project, [{ text: "hi" }]);
  await waitFor(() => project.exists("STARTED"), "the approved server to start");
});
