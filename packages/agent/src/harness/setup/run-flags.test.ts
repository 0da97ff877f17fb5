// What a run takes from its command line besides the configuration files (Claude Code's
// --mcp-config, --strict-mcp-config, --settings, --setting-sources, --add-dir and --tools).
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { mcpTestServerCommand } from "@harness/test-utils";
import { tempWorkspace, withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject, type ProjectRun } from "../../testing/project.ts";

function offered(run: ProjectRun): string[] {
  return (run.provider.requests[0].tools ?? []).map((tool) => tool.name);
}

function serversOffered(run: ProjectRun): string[] {
  return [...new Set(offered(run).flatMap((name) => /^mcp__([^_]+)__/.exec(name)?.[1] ?? []))].sort();
}

function warnings(run: ProjectRun): string[] {
  return run.events.flatMap((e) => (e.type === "notice" && e.level === "warning" ? [e.message] : []));
}

function firstResults(run: ProjectRun): ToolResultBlock[] {
  const message: ModelMessage | undefined = withoutCacheMarks(run.provider.requests[1].messages).at(-1);
  assert.ok(message && typeof message.content !== "string");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

test("the run's MCP servers start without approval, beside the user's; strictMcpConfig leaves only them", async (t) => {
  const project = await tempProject(t);
  await project.settings({ mcpServers: { mine: mcpTestServerCommand() }, enabledMcpjsonServers: ["shared"] }, "user");
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { shared: mcpTestServerCommand() } }));
  const mcpConfig = [{ file: "/tmp/run.mcp.json", servers: { flagged: mcpTestServerCommand() } }];

  // Every tool offered up front, however many the built-in ones are: none deferred behind ToolSearch.
  const env = { ...process.env, HARNESS_DEFER_TOOLS_AFTER: "1000" };
  const both = await runInProject(project, [{ text: "Done." }], { mcpConfig, env });
  assert.deepEqual(serversOffered(both), ["flagged", "mine", "shared"]);

  const strict = await runInProject(project, [{ text: "Done." }], { mcpConfig, strictMcpConfig: true });
  assert.deepEqual(serversOffered(strict), ["flagged"]);

  const none = await runInProject(project, [{ text: "Done." }], { strictMcpConfig: true });
  assert.deepEqual(serversOffered(none), []);
});

test("the run's MCP servers are held to the managed MCP policy", async (t) => {
  const project = await tempProject(t);
  await project.writeHome("managed-settings.json", JSON.stringify({ deniedMcpServers: [{ serverName: "blocked" }] }));
  const run = await runInProject(project, [{ text: "Done." }], {
    mcpConfig: [{ file: "--mcp-config", servers: { blocked: mcpTestServerCommand(), fine: mcpTestServerCommand() } }],
  });
  assert.deepEqual(serversOffered(run), ["fine"]);
  assert.ok(warnings(run).includes(`MCP server "blocked" of --mcp-config is not started: it is listed in deniedMcpServers.`), warnings(run).join("\n"));
});

test("the run's settings sit above the local settings and below the managed ones", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { deny: ["Bash(touch local.txt)"] }, env: { WHO: "local" } }, "local");
  await project.writeHome("managed-settings.json", JSON.stringify({ env: { MANAGED: "managed" }, permissions: { deny: ["Bash(touch managed.txt)"] } }));
  const flagSettings = { file: "--settings", settings: { env: { WHO: "flag", MANAGED: "flag" }, permissions: { allow: ["Bash(touch managed.txt)"] } } };
  const run = await runInProject(
    project,
    [{ toolCalls: [{ id: "toolu_env", name: "Bash", input: { command: 'echo "$WHO $MANAGED" > env.txt; touch managed.txt' } }] }, { text: "Done." }],
    { flagSettings, permissionMode: "bypassPermissions" },
  );
  assert.equal(run.result.stopReason, "end_turn");
  // bypassPermissions lets the command itself through; the managed deny rule still refuses it.
  assert.equal(firstResults(run)[0].is_error, true);

  const echo = await runInProject(project, [{ toolCalls: [{ id: "toolu_env", name: "Bash", input: { command: 'echo "$WHO $MANAGED" > env.txt' } }] }, { text: "Done." }], {
    flagSettings,
    permissionMode: "bypassPermissions",
  });
  assert.equal(echo.result.stopReason, "end_turn");
  assert.equal((await project.read("env.txt")).trim(), "flag managed");
});

test("settingSources chooses the settings files read; the managed settings and the run's own are read whatever it says", async (t) => {
  const project = await tempProject(t);
  await project.settings({ permissions: { deny: ["WebFetch"] } }, "user");
  await project.settings({ permissions: { deny: ["WebSearch"] } }, "project");
  await project.settings({ permissions: { deny: ["Glob"] } }, "local");
  await project.writeHome("managed-settings.json", JSON.stringify({ permissions: { deny: ["Grep"] } }));
  const flagSettings = { file: "--settings", settings: { permissions: { deny: ["TodoWrite"] } } };

  const all = offered(await runInProject(project, [{ text: "Done." }]));
  assert.ok(!["WebFetch", "WebSearch", "Glob", "Grep"].some((name) => all.includes(name)), all.join(", "));

  const projectOnly = offered(await runInProject(project, [{ text: "Done." }], { settingSources: ["project"], flagSettings }));
  assert.ok(projectOnly.includes("WebFetch") && projectOnly.includes("Glob"), projectOnly.join(", "));
  assert.ok(!projectOnly.includes("WebSearch") && !projectOnly.includes("Grep") && !projectOnly.includes("TodoWrite"), projectOnly.join(", "));

  const none = offered(await runInProject(project, [{ text: "Done." }], { settingSources: [] }));
  assert.ok(none.includes("WebFetch") && none.includes("WebSearch") && none.includes("Glob") && !none.includes("Grep"), none.join(", "));
});

test("additionalDirectories lets the file tools reach another directory as they reach the project", async (t) => {
  const project = await tempProject(t);
  const other = await tempWorkspace(t);
  await fs.writeFile(path.join(other, "notes.txt"), "shared notes\n");
  const steps = () => [{ toolCalls: [{ id: "toolu_read", name: "Read", input: { file_path: path.join(other, "notes.txt") } }] }, { text: "Done." }];

  const without = await runInProject(project, steps());
  assert.equal(firstResults(without)[0].is_error, true);

  const within = await runInProject(project, steps(), { additionalDirectories: [other] });
  const [read] = firstResults(within);
  assert.equal(read.is_error, undefined);
  assert.match(JSON.stringify(read.content), /shared notes/);
});

test("the environment block names the additional working directories, as Claude Code's does", async (t) => {
  const project = await tempProject(t);
  const other = await tempWorkspace(t);
  const shared = await tempWorkspace(t);
  await project.settings({ permissions: { additionalDirectories: [shared] } }, "user");
  const system = (run: ProjectRun) => JSON.stringify(run.provider.requests[0].system);

  const run = await runInProject(project, [{ text: "Done." }], { additionalDirectories: [other] });
  assert.ok(system(run).includes(`Additional working directories: ${shared}, ${other}\\n`), system(run));
  const none = await runInProject(project, [{ text: "Done." }], { settingSources: ["project"] });
  assert.ok(!system(none).includes("Additional working directories"), system(none));
});

test("builtinTools offers only the built-in tools it names; MCP tools stay", async (t) => {
  const project = await tempProject(t);
  await project.settings({ mcpServers: { mine: mcpTestServerCommand() } }, "user");

  const some = offered(await runInProject(project, [{ text: "Done." }], { builtinTools: ["Bash", "Read", "Agent"] }));
  assert.deepEqual(
    some.filter((name) => !name.startsWith("mcp__")),
    ["Read", "Bash", "Task"],
  );
  assert.ok(some.includes("mcp__mine__echo"), some.join(", "));

  const none = offered(await runInProject(project, [{ text: "Done." }], { builtinTools: [] }));
  assert.ok(none.every((name) => name.startsWith("mcp__") || name === "ToolSearch" || name.endsWith("McpResourcesTool") || name === "ReadMcpResourceTool"), none.join(", "));
  assert.ok(none.includes("mcp__mine__echo"));
});

test("settingSources also chooses whose memory files, skills and agents the run reads", async (t) => {
  const project = await tempProject(t);
  await project.writeHome(".claude/CLAUDE.md", "USER-MEMORY");
  await project.writeHome(".claude/skills/user-skill/SKILL.md", "---\nname: user-skill\ndescription: USER-SKILL\n---\nDo it.");
  await project.writeHome(".claude/agents/user-agent.md", "---\nname: user-agent\ndescription: USER-AGENT\n---\nHelp.");
  await project.write("CLAUDE.md", "PROJECT-MEMORY");
  await project.write("CLAUDE.local.md", "LOCAL-MEMORY");
  await project.write(".claude/skills/project-skill/SKILL.md", "---\nname: project-skill\ndescription: PROJECT-SKILL\n---\nDo it.");
  await project.write(".claude/agents/project-agent.md", "---\nname: project-agent\ndescription: PROJECT-AGENT\n---\nHelp.");
  const sent = async (settingSources?: ("user" | "project" | "local")[]) => {
    const run = await runInProject(project, [{ text: "Done." }], settingSources && { settingSources });
    return JSON.stringify({ system: run.provider.requests[0].system, messages: run.provider.requests[0].messages, tools: run.provider.requests[0].tools });
  };

  const all = await sent();
  for (const text of ["USER-MEMORY", "USER-SKILL", "USER-AGENT", "PROJECT-MEMORY", "LOCAL-MEMORY", "PROJECT-SKILL", "PROJECT-AGENT"]) assert.match(all, new RegExp(text));

  const projectOnly = await sent(["project"]);
  for (const text of ["PROJECT-MEMORY", "PROJECT-SKILL", "PROJECT-AGENT"]) assert.match(projectOnly, new RegExp(text));
  for (const text of ["USER-MEMORY", "USER-SKILL", "USER-AGENT", "LOCAL-MEMORY"]) assert.doesNotMatch(projectOnly, new RegExp(text));

  const userOnly = await sent(["user", "local"]);
  for (const text of ["USER-MEMORY", "USER-SKILL", "USER-AGENT", "LOCAL-MEMORY"]) assert.match(userOnly, new RegExp(text));
  for (const text of ["PROJECT-MEMORY", "PROJECT-SKILL", "PROJECT-AGENT"]) assert.doesNotMatch(userOnly, new RegExp(text));
});
