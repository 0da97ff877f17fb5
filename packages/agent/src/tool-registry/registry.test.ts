import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { z } from "zod";
import { dummyToolTopic, mcpTestServerCommand } from "@harness/test-utils";
import { defineTool } from "../define-tool.ts";
import { type McpManager, startMcp } from "../mcp/manager.ts";
import { prepareToolCall } from "../loop/tool-input.ts";
import type { Tool, ToolContext } from "../types.ts";
import { createToolRegistry, type ToolRegistry } from "./registry.ts";

const ctx: ToolContext = { cwd: "/", signal: new AbortController().signal, toolUseId: "toolu_1" };

function builtin(name: string): Tool {
  return defineTool({ name, description: `The ${name} tool. It does ${name} things.`, parameters: z.object({}), execute: async () => ({ content: name }) });
}

function fakeMcp(name: string, description: string): Tool {
  return defineTool({
    name,
    description,
    parameters: z.object({ value: z.string() }),
    execute: async (args) => ({ content: `${name}(${args.value})` }),
  });
}

const builtins = ["Read", "Write", "Edit", "Bash", "Glob", "Grep"].map(builtin);

async function run(registry: ToolRegistry, name: string, input: unknown) {
  const tools = new Map(registry.visibleTools().map((t) => [t.name, t]));
  const tool = registry.get(name);
  assert.ok(tool, `${name} resolves`);
  tools.set(name, tool);
  const prepared = prepareToolCall(tools, name, input);
  if (!prepared.ok) return { content: prepared.error, isError: true };
  return prepared.tool.execute(prepared.args, ctx);
}

describe("below the threshold", () => {
  test("every tool is visible, nothing is deferred, there is no ToolSearch", () => {
    const tools = [...builtins, fakeMcp("mcp__a__one", "One."), fakeMcp("mcp__a__two", "Two.")];
    const registry = createToolRegistry(tools, { deferThreshold: 40 });
    assert.deepEqual(registry.visibleTools(), tools);
    assert.equal(registry.deferredIndex(), "");
    assert.equal(registry.get("ToolSearch"), undefined);
    assert.equal(registry.get("mcp__a__two"), tools[7]);
  });

  test("HARNESS_DEFER_TOOLS_AFTER sets the threshold", () => {
    const tools = [...builtins, fakeMcp("mcp__a__one", "One."), fakeMcp("mcp__a__two", "Two.")];
    const registry = createToolRegistry(tools, { env: { HARNESS_DEFER_TOOLS_AFTER: "7" } });
    assert.deepEqual(registry.visibleTools().map((t) => t.name), ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "ToolSearch"]);
  });
});

describe("100 MCP tools from a real MCP server", () => {
  let manager: McpManager;
  let registry: ToolRegistry;
  before(async () => {
    const { command, args } = mcpTestServerCommand({ extraTools: 100 });
    manager = await startMcp({ servers: [{ name: "big", scope: "project", file: ".mcp.json", type: "stdio", command, args, env: {} }] }, { cwd: "/" });
    assert.ok(manager.tools.length > 100);
    registry = createToolRegistry([...builtins, ...manager.tools]);
  });
  after(() => manager.close());

  test("MCP tools are deferred; built-in tools and ToolSearch are visible", () => {
    assert.deepEqual(registry.visibleTools().map((t) => t.name), ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "ToolSearch"]);
  });

  test("the deferred index lists every MCP tool with the first sentence of its description", () => {
    const lines = registry.deferredIndex().split("\n");
    assert.equal(lines.length, manager.tools.length);
    assert.ok(lines.includes("mcp__big__add: Adds two numbers and returns the sum."));
    assert.ok(lines.includes(`mcp__big__dummy_42: Dummy tool number 42 about ${dummyToolTopic(42)}.`));
  });

  test("calling a deferred tool before loading it tells the model to use ToolSearch", async () => {
    const output = await run(registry, "mcp__big__echo", { text: "hi" });
    assert.equal(output.isError, true);
    assert.match(output.content, /mcp__big__echo is a deferred tool .* Call ToolSearch with query "select:mcp__big__echo" first/);
  });

  test("select: loads exact tools, returns their schemas, and they become visible and callable", async () => {
    const output = await run(registry, "ToolSearch", { query: "select:mcp__big__echo,mcp__big__add,Read,mcp__big__nope" });
    assert.equal(output.isError, undefined);
    assert.match(output.content, /Read is already available; call it directly\./);
    assert.match(output.content, /No deferred tool is named mcp__big__nope\./);
    assert.match(output.content, /Loaded 2 tools/);
    const schemas = [...output.content.matchAll(/<function>(.*)<\/function>/g)].map((m) => JSON.parse(m[1]));
    assert.deepEqual(schemas.map((s) => s.name), ["mcp__big__echo", "mcp__big__add"]);
    assert.deepEqual(schemas[1].parameters.required, ["a", "b"]);
    assert.equal(schemas[1].description, "Adds two numbers and returns the sum.");

    const visible = registry.visibleTools().map((t) => t.name);
    assert.deepEqual(visible, ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "ToolSearch", "mcp__big__echo", "mcp__big__add"]);
    assert.deepEqual(await run(registry, "mcp__big__echo", { text: "loaded" }), { content: "loaded", isError: false });
    assert.deepEqual(registry.loaded(), ["mcp__big__echo", "mcp__big__add"]);
  });

  test("keyword search ranks by name and description and respects max_results", async () => {
    const output = await run(registry, "ToolSearch", { query: "invoices", max_results: 3 });
    const names = [...output.content.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]);
    assert.equal(names.length, 3);
    for (const name of names) assert.equal(dummyToolTopic(Number(name.replace("mcp__big__dummy_", ""))), "invoices");
    for (const name of names) assert.ok(registry.visibleTools().some((t) => t.name === name));

    const bySum = await run(registry, "ToolSearch", { query: "sum numbers" });
    assert.match(bySum.content, /"name":"mcp__big__add"/);
  });

  test("a +word must be in the name", async () => {
    const output = await run(registry, "ToolSearch", { query: "+pid process" });
    const names = [...output.content.matchAll(/"name":"([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(names, ["mcp__big__pid"]);
  });

  test("a search without matches says so and loads nothing", async () => {
    const before = registry.loaded();
    const output = await run(registry, "ToolSearch", { query: "spaceship" });
    assert.match(output.content, /No matching deferred tools for "spaceship"/);
    assert.deepEqual(registry.loaded(), before);
  });

  test("the deferred index does not change as tools load", () => {
    assert.equal(registry.deferredIndex().split("\n").length, manager.tools.length);
  });
});

describe("ordering and restore", () => {
  test("built-in tools are never deferred; loaded tools follow in load order; markLoaded restores", () => {
    const many = Array.from({ length: 50 }, (_, i) => fakeMcp(`mcp__s__t${i}`, `Tool ${i}. More text.`));
    const registry = createToolRegistry([...builtins, ...many], { deferThreshold: 10 });
    registry.markLoaded(["mcp__s__t9", "Read", "mcp__s__t3", "unknown"]);
    assert.deepEqual(registry.visibleTools().map((t) => t.name), ["Read", "Write", "Edit", "Bash", "Glob", "Grep", "ToolSearch", "mcp__s__t9", "mcp__s__t3"]);
    assert.equal(registry.deferredIndex().split("\n")[0], "mcp__s__t0: Tool 0.");
  });
});
