// Runs against MCP servers that send what the SDK's own server never would.
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { test } from "node:test";
import type { ModelMessage, ModelRequest, ToolResultBlock } from "@harness/llm";
import { mcpRawServerCommand, type McpRawServerScript } from "@harness/test-utils";
import { waitFor } from "../../testing/fixtures.ts";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";
import { createAgentResources } from "../resources.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

/** A `.mcp.json` server "raw" playing `script`, approved as Claude Code records it. */
async function withRawServer(project: TempProject, script: McpRawServerScript): Promise<void> {
  const { command, args } = await mcpRawServerCommand(path.join(project.home, "raw-script.json"), script);
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { raw: { command, args } } }));
  await project.writeHome(".claude.json", JSON.stringify({ projects: { [project.root]: { enabledMcpjsonServers: ["raw"] } } }));
}

test("a tool whose schema has a top-level anyOf reaches the model without it, with every branch's fields", async (t) => {
  const project = await tempProject(t);
  await withRawServer(project, {
    tools: [
      {
        name: "fetch",
        description: "Fetches a url or reads a path.",
        inputSchema: {
          type: "object",
          properties: { format: { type: "string" } },
          anyOf: [
            { properties: { url: { type: "string" } }, required: ["url"] },
            { properties: { path: { type: "string" } }, required: ["path"] },
          ],
          allOf: [{ properties: { mode: { type: "string" } }, required: ["mode"] }],
        },
      },
    ],
  });
  const { provider } = await runInProject(project, [{ text: "Done." }]);

  const schema = provider.requests[0].tools?.find((tool) => tool.name === "mcp__raw__fetch")?.input_schema;
  // The Anthropic API refuses a request whose tool has anyOf, oneOf or allOf at the top.
  assert.deepEqual(schema, {
    type: "object",
    properties: { format: { type: "string" }, url: { type: "string" }, path: { type: "string" }, mode: { type: "string" } },
    required: ["mode"],
  });
});

test("a tool with a malformed schema is left out, named, and the server's other tools are used", async (t) => {
  const project = await tempProject(t);
  await withRawServer(project, {
    tools: [
      { name: "good", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
      { name: "stringly", inputSchema: { type: "string" } },
      { name: "listed", inputSchema: { type: "object", properties: [] } },
      // An output schema ajv cannot compile: never read, so the tool is used.
      { name: "typed", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { a: { type: "nonsense" } } } },
    ],
    results: { typed: { content: [{ type: "text", text: "typed answer" }] } },
  });
  const { provider, events } = await runInProject(
    project,
    [{ toolCalls: [{ id: "toolu_good", name: "mcp__raw__good", input: { q: "x" } }, { id: "toolu_typed", name: "mcp__raw__typed", input: {} }] }, { text: "Done." }],
    { permissionMode: "bypassPermissions" },
  );

  const names = provider.requests[0].tools?.map((tool) => tool.name).filter((name) => name.startsWith("mcp__"));
  assert.deepEqual(names, ["mcp__raw__good", "mcp__raw__typed"]);
  const notices = events.flatMap((e) => (e.type === "notice" ? [`${e.level}: ${e.message}`] : []));
  assert.deepEqual(notices, [
    'warning: MCP tool stringly of server raw left out: "inputSchema" must have "type": "object", not "string"',
    'warning: MCP tool listed of server raw left out: "inputSchema.properties" must be an object of schemas',
    "info: MCP server raw connected: 2 tools",
  ]);
  const results = JSON.stringify(provider.requests[1].messages.at(-1));
  assert.match(results, /called good/);
  assert.match(results, /typed answer/);
});

test("cancelling a run cancels its MCP call in flight, and none of the requests that had already ended", async (t) => {
  const project = await tempProject(t);
  const log = path.join(project.home, "raw-log.jsonl");
  await withRawServer(project, { tools: [{ name: "echo", inputSchema: { type: "object" } }, { name: "wait", inputSchema: { type: "object" } }], results: { wait: "hang" }, log });
  const received = async () => (await fs.readFile(log, "utf8").catch(() => "")).trim().split("\n").filter(Boolean).map((line) => JSON.parse(line));
  const controller = new AbortController();
  const echoes = Array.from({ length: 12 }, (_, i) => ({ id: `toolu_echo_${i}`, name: "mcp__raw__echo", input: {} }));
  const started = Date.now();
  const run = runInProject(project, [{ toolCalls: echoes }, { toolCalls: [{ id: "toolu_wait", name: "mcp__raw__wait", input: {} }] }], {
    permissionMode: "bypassPermissions",
    signal: controller.signal,
    // Past this, the start-up time limit of the server (long over by then) must cancel nothing. Long
    // enough for the server's process to start on a loaded machine.
    env: { ...process.env, MCP_TIMEOUT: "2000" },
  });
  const waitCall = await waitFor(async () => (await received()).find((m) => m.method === "tools/call" && m.params.name === "wait"), "the wait call");
  await delay(Math.max(400, started + 2400 - Date.now()));
  controller.abort();
  const { result } = await run;
  assert.equal(result.stopReason, "aborted");

  const cancelled = await waitFor(async () => {
    const found = (await received()).filter((m) => m.method === "notifications/cancelled");
    return found.length > 0 ? found : undefined;
  }, "a cancellation");
  await delay(200);
  assert.deepEqual(
    (await received()).filter((m) => m.method === "notifications/cancelled").map((m) => m.params.requestId),
    [waitCall.id],
    `only the call in flight is cancelled (got ${JSON.stringify(cancelled)})`,
  );
});

test("an answer over the stdio message limit is said as such, not as the server having exited", async (t) => {
  const project = await tempProject(t);
  await withRawServer(project, { tools: [{ name: "dump", inputSchema: { type: "object" } }], results: { dump: { textBytes: 11 * 1024 * 1024 } } });
  const { provider, events } = await runInProject(project, [{ toolCalls: [{ id: "toolu_dump", name: "mcp__raw__dump", input: {} }] }, { text: "Done." }], {
    permissionMode: "bypassPermissions",
  });

  const reason = "it sent a message larger than 10 MB, the most one message may hold, so the connection was closed";
  const [dump] = resultsIn(provider.requests[1].messages.at(-1));
  assert.equal(dump.is_error, true);
  assert.equal(dump.content, `MCP server raw is not connected (${reason})`);
  assert.ok(
    events.some((e) => e.type === "notice" && e.level === "error" && e.message === `MCP server raw failed: ${reason}`),
    JSON.stringify(events.filter((e) => e.type === "notice")),
  );
});

test("a result with an item of a kind the SDK does not know keeps its other items", async (t) => {
  const project = await tempProject(t);
  await withRawServer(project, {
    tools: [{ name: "page", inputSchema: { type: "object" } }],
    results: { page: { content: [{ type: "text", text: "the page's text" }, { type: "video", uri: "https://example.com/v.mp4" }] } },
  });
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_page", name: "mcp__raw__page", input: {} }] }, { text: "Done." }], {
    permissionMode: "bypassPermissions",
  });

  const [page] = resultsIn(provider.requests[1].messages.at(-1));
  assert.equal(page.is_error, undefined);
  assert.equal(page.content, `the page's text\n[content of type "video" omitted]`);
});

test("a call that reports progress is not cut off by MCP_TOOL_TIMEOUT while it does", async (t) => {
  const project = await tempProject(t);
  await withRawServer(project, { tools: [{ name: "build", inputSchema: { type: "object" } }], results: { build: { progressCount: 8, progressEveryMs: 150 } } });
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_build", name: "mcp__raw__build", input: {} }] }, { text: "Done." }], {
    permissionMode: "bypassPermissions",
    // 1.2 s in all, a step every 150 ms.
    env: { ...process.env, MCP_TOOL_TIMEOUT: "600" },
  });

  const [build] = resultsIn(provider.requests[1].messages.at(-1));
  assert.equal(build.content, "done after 8 steps");
});

test("a call that reports nothing is cut off by MCP_TOOL_TIMEOUT", async (t) => {
  const project = await tempProject(t);
  await withRawServer(project, { tools: [{ name: "build", inputSchema: { type: "object" } }], results: { build: "hang" } });
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_build", name: "mcp__raw__build", input: {} }] }, { text: "Done." }], {
    permissionMode: "bypassPermissions",
    env: { ...process.env, MCP_TOOL_TIMEOUT: "600" },
  });

  const [build] = resultsIn(provider.requests[1].messages.at(-1));
  assert.equal(build.is_error, true);
  assert.match(String(build.content), /^MCP tool build of server raw failed: .*timed out/i);
});

test("a call's progress reports are lines of its live output: reports for tokens it was not given are ignored, bad values left out or clipped", async (t) => {
  const project = await tempProject(t);
  const progressReports = [
    { progressToken: "not-given", progress: 1, message: "stray" },
    { progressToken: 987654, progress: 1, message: "stray too" },
    { progress: "3", message: "a progress that is not a number" },
    { progress: 1, total: 10, message: "fine" },
    { progress: 1, total: 10, message: "fine" },
    { progress: -1, message: "negative" },
    { progress: 12, total: 10, message: "past the total" },
    { progress: 5, message: `${"x".repeat(200_000)}` },
    { progress: 6 },
  ];
  // Answered once the reports had time to stream (100 ms apart at most): what is still pending
  // when the result comes is dropped, as a Bash command's last output is.
  await withRawServer(project, { tools: [{ name: "build", inputSchema: { type: "object" } }], results: { build: { progressReports, answerAfterMs: 500 } } });
  const { provider, events } = await runInProject(project, [{ toolCalls: [{ id: "toolu_build", name: "mcp__raw__build", input: {} }] }, { text: "Done." }], {
    permissionMode: "bypassPermissions",
  });

  const streamed = events.flatMap((e) => (e.type === "tool.output" && e.toolUseId === "toolu_build" ? [e.text] : [])).join("");
  assert.equal(streamed, `[1/10] fine\nnegative\n[10/10] past the total\n[5] ${"x".repeat(500)}…\n[6]\n`);
  const [build] = resultsIn(provider.requests[1].messages.at(-1));
  assert.equal(build.content, `reported ${progressReports.length} times`);
  const completed = events.findIndex((e) => e.type === "tool.completed" && e.toolUseId === "toolu_build");
  assert.ok(events.slice(completed).every((e) => e.type !== "tool.output"), "nothing streams after the result");
});

test("a server that says its tools changed is listed anew, and the next prompt has its new tools", async (t) => {
  const project = await tempProject(t);
  const before = [{ name: "install", inputSchema: { type: "object" } }];
  const after = [...before, { name: "late", description: "Added by install.", inputSchema: { type: "object" } }];
  await withRawServer(project, { tools: before, results: { install: { changeTools: after } } });
  const resources = createAgentResources();
  t.after(() => resources.dispose());

  const first = await runInProject(project, [{ toolCalls: [{ id: "toolu_install", name: "mcp__raw__install", input: {} }] }, { text: "Installed." }], {
    resources,
    permissionMode: "bypassPermissions",
  });
  const mcpNames = (request: ModelRequest) => request.tools?.map((tool) => tool.name).filter((name) => name.startsWith("mcp__"));
  assert.deepEqual(mcpNames(first.provider.requests[0]), ["mcp__raw__install"]);
  assert.ok(
    first.events.some((e) => e.type === "notice" && e.message === "MCP server raw changed its tools: 2 tools, used from the next prompt on"),
    JSON.stringify(first.events.filter((e) => e.type === "notice")),
  );

  const second = await runInProject(project, [{ toolCalls: [{ id: "toolu_late", name: "mcp__raw__late", input: {} }] }, { text: "Done." }], {
    resources,
    permissionMode: "bypassPermissions",
  });
  assert.deepEqual(mcpNames(second.provider.requests[0]), ["mcp__raw__install", "mcp__raw__late"]);
  const [late] = resultsIn(second.provider.requests[1].messages.at(-1));
  assert.equal(late.content, "called late");
});

test("an MCP tool's result is cut at MAX_MCP_OUTPUT_TOKENS (25,000 tokens unless set), not at the built-in tools' limit", async (t) => {
  const run = async (env: Record<string, string> | undefined) => {
    const project = await tempProject(t);
    await withRawServer(project, { tools: [{ name: "dump", inputSchema: { type: "object" } }], results: { dump: { textBytes: 200_000 } } });
    if (env) await project.settings({ env });
    const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_dump", name: "mcp__raw__dump", input: {} }] }, { text: "Done." }], {
      permissionMode: "bypassPermissions",
    });
    const [dump] = resultsIn(provider.requests[1].messages.at(-1));
    return String(dump.content);
  };
  const byDefault = await run(undefined);
  assert.match(byDefault, /\[Output truncated: 100,000 of 200,000 characters were cut\./);
  const set = await run({ MAX_MCP_OUTPUT_TOKENS: "1000" });
  assert.match(set, /\[Output truncated: 196,000 of 200,000 characters were cut\./);
  const unusable = await run({ MAX_MCP_OUTPUT_TOKENS: "lots" });
  assert.match(unusable, /\[Output truncated: 100,000 of 200,000 characters were cut\./, "a value that is no number of tokens leaves the default");
});

test("a server's paged lists are read page by page: every tool of three pages, and at most 20 pages of resources, saying the rest are not listed", async (t) => {
  const project = await tempProject(t);
  const tool = (name: string) => ({ name, inputSchema: { type: "object", properties: {} } });
  await withRawServer(project, { tools: [tool("first"), tool("second"), tool("third")], toolsPaged: true, resources: [{ uri: "db://table", name: "table" }] });
  const { provider } = await runInProject(project, [{ toolCalls: [{ id: "toolu_list", name: "ListMcpResourcesTool", input: {} }] }, { text: "Listed." }]);
  const names = provider.requests[0].tools?.map((t) => t.name) ?? [];
  for (const name of ["mcp__raw__first", "mcp__raw__second", "mcp__raw__third"]) assert.ok(names.includes(name), names.join(", "));
  const [listed] = resultsIn(provider.requests[1].messages.at(-1));
  const text = String(listed.content);
  assert.equal(text.split('"uri": "db://table"').length - 1, 20, "one resource from each of 20 pages");
  assert.match(text, /MCP server raw has more resources than 20 pages; the rest are not listed\./);
});
