import assert from "node:assert/strict";
import { test } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import { mcpTestServerCommand, TEST_PNG_BASE64, TEST_README } from "@harness/test-utils";
import { resourceMentions } from "./mcp-resources.ts";
import { withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

/** `.mcp.json` servers, approved in the user's ~/.claude.json. */
async function withServers(project: TempProject, servers: Record<string, { resources?: boolean; prompts?: boolean }>): Promise<void> {
  const entries = Object.fromEntries(Object.entries(servers).map(([name, options]) => [name, mcpTestServerCommand(options)]));
  await project.write(".mcp.json", JSON.stringify({ mcpServers: entries }));
  await project.writeHome(".claude.json", JSON.stringify({ projects: { [project.root]: { enabledMcpjsonServers: Object.keys(servers) } } }));
}

function lastUserText(messages: ModelMessage[]): string {
  const last = withoutCacheMarks(messages).at(-1);
  assert.ok(last && last.role === "user");
  return typeof last.content === "string" ? last.content : last.content.map((b) => (b.type === "text" ? b.text : "")).join("");
}

test("a server with resources brings ListMcpResourcesTool and ReadMcpResourceTool; they list and read without approval", async (t) => {
  const project = await tempProject(t);
  await withServers(project, { docs: { resources: true }, plain: {} });
  const { provider, result } = await runInProject(project, [
    {
      toolCalls: [
        { id: "toolu_list", name: "ListMcpResourcesTool", input: {} },
        { id: "toolu_read", name: "ReadMcpResourceTool", input: { server: "docs", uri: "docs://readme" } },
        { id: "toolu_logo", name: "ReadMcpResourceTool", input: { server: "docs", uri: "docs://logo" } },
        { id: "toolu_gone", name: "ReadMcpResourceTool", input: { server: "docs", uri: "docs://missing" } },
        { id: "toolu_other", name: "ReadMcpResourceTool", input: { server: "plain", uri: "docs://readme" } },
      ],
    },
    { text: "Read them." },
  ]);
  assert.equal(result.stopReason, "end_turn");
  const names = provider.requests[0].tools?.map((tool) => tool.name) ?? [];
  assert.ok(names.includes("ListMcpResourcesTool") && names.includes("ReadMcpResourceTool"), names.join(", "));

  const [list, read, logo, gone, other] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.notEqual(list.is_error, true);
  const listed = JSON.parse(String(list.content)) as { server: string; uri: string; name: string }[];
  assert.deepEqual(
    listed.map((r) => `${r.server} ${r.uri} ${r.name}`),
    ["docs docs://readme readme", "docs docs://logo logo", "docs docs://missing missing"],
  );
  assert.equal(read.content, TEST_README);
  assert.ok(Array.isArray(logo.content) && logo.content.some((b) => b.type === "image" && b.source.type === "base64" && b.source.data === TEST_PNG_BASE64), "the PNG reaches the model as an image");
  assert.equal(gone.is_error, true);
  assert.match(String(gone.content), /Reading docs:\/\/missing from MCP server docs failed: .*docs:\/\/missing is gone/);
  assert.equal(other.is_error, true);
  assert.match(String(other.content), /no MCP server "plain" has resources; the servers with resources are: docs/);
});

test("without a server that has resources there are no resource tools", async (t) => {
  const project = await tempProject(t);
  await withServers(project, { plain: { prompts: true } });
  const { provider } = await runInProject(project, [{ text: "ok" }]);
  const names = provider.requests[0].tools?.map((tool) => tool.name) ?? [];
  assert.ok(names.includes("mcp__plain__echo"));
  assert.ok(!names.some((name) => name.endsWith("McpResourcesTool") || name === "ReadMcpResourceTool"), names.join(", "));
});

test("a prompt's @server:uri mentions are read and put after it; other @words stay text", async (t) => {
  const project = await tempProject(t);
  await withServers(project, { docs: { resources: true } });
  const prompt = "Summarize @docs:docs://readme. Mail me@example.com about @other:docs://readme and @docs:docs://missing";
  const { provider, events } = await runInProject(project, [{ text: "Summary." }], { prompt });
  const sent = lastUserText(provider.requests[0].messages);
  assert.ok(sent.startsWith(prompt), sent);
  assert.match(sent, new RegExp(`Contents of docs:docs://readme:\\n${TEST_README.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`));
  assert.match(sent, /\(@docs:docs:\/\/missing was not read: Reading docs:\/\/missing from MCP server docs failed/);
  assert.doesNotMatch(sent, /Contents of other:/);
  const reads = events.filter((e) => e.type === "tool.started" && e.toolName === "ReadMcpResourceTool");
  assert.equal(reads.length, 2, "the user sees each read as a tool call");
});

test("resourceMentions: only the given servers, sentence punctuation trimmed, each once", () => {
  assert.deepEqual(resourceMentions("see @db:schema://users, and (@db:schema://users) @x:y @db:schema://orders.", ["db"]), [
    { server: "db", uri: "schema://users" },
    { server: "db", uri: "schema://orders" },
  ]);
  assert.deepEqual(resourceMentions("a@db:schema://users", ["db"]), [], "a mention starts a word");
});

test("/mcp__<server>__<prompt> sends the server's prompt, its arguments in order; missing ones get the usage, with no model call", async (t) => {
  const project = await tempProject(t);
  await withServers(project, { x: { prompts: true } });

  const review = await runInProject(project, [{ text: "Reviewed." }], { prompt: "/mcp__x__review src/app.ts error handling" });
  assert.equal(review.result.stopReason, "end_turn");
  assert.equal(lastUserText(review.provider.requests[0].messages), "Please review src/app.ts, looking at error handling.");

  const hello = await runInProject(project, [{ text: "Hello." }], { prompt: "/mcp__x__hello" });
  assert.equal(lastUserText(hello.provider.requests[0].messages), "Say hello.\n\nHello from the test server.");

  const missing = await runInProject(project, [{ text: "never" }], { prompt: "/mcp__x__review" });
  assert.equal(missing.provider.requests.length, 0);
  assert.equal(missing.result.result, "/mcp__x__review needs file. Usage: /mcp__x__review <file> [focus]");

  const extra = await runInProject(project, [{ text: "never" }], { prompt: "/mcp__x__hello there" });
  assert.equal(extra.provider.requests.length, 0);
  assert.equal(extra.result.result, "/mcp__x__hello takes no arguments.");

  const help = await runInProject(project, [{ text: "never" }], { prompt: "/help" });
  assert.match(help.result.result, /Prompts of MCP servers:\n {2}\/mcp__x__review <file> \[focus\] — Review a file\. \(MCP server x\)\n {2}\/mcp__x__hello — Say hello\. \(MCP server x\)/);
  assert.match(
    review.events.map((e) => (e.type === "notice" ? e.message : "")).join("\n"),
    /MCP server x connected: \d+ tools, 2 prompts/,
  );
});

test("a server's prompt is cut at MAX_MCP_OUTPUT_TOKENS, as a tool call's output is, instead of entering every later request whole", async (t) => {
  const project = await tempProject(t);
  await withServers(project, { x: { prompts: true } });
  const env = { ...process.env, MAX_MCP_OUTPUT_TOKENS: "5" };
  const review = await runInProject(project, [{ text: "Reviewed." }], { prompt: "/mcp__x__review src/app.ts error handling", env });
  const sent = lastUserText(review.provider.requests[0].messages);
  assert.ok(sent.startsWith("Please review src/ap\n\n[Output truncated: 32 of 52 characters were cut."), sent);
});
