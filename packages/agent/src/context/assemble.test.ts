import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ModelMessage, ToolSchema } from "@harness/llm";
import { assembleRequestContext, MAX_CACHE_BREAKPOINTS, type RequestContext, type RequestContextInput } from "./assemble.ts";
import type { MemoryFile } from "./types.ts";

const tools: ToolSchema[] = [
  { name: "Read", description: "Reads a file", input_schema: { type: "object", properties: { file_path: { type: "string" } } } },
  { name: "Bash", description: "Runs a command", input_schema: { type: "object", properties: { command: { type: "string" } } } },
];
const memory: MemoryFile[] = [
  { path: "/home/u/.claude/CLAUDE.md", scope: "user", content: "Always answer in English." },
  { path: "/repo/CLAUDE.md", scope: "project", content: "Use pnpm, not npm.\n" },
];

function input(history: ModelMessage[], overrides: Partial<RequestContextInput> = {}): RequestContextInput {
  return {
    systemPrompt: "You are a coding agent.",
    appendSystemPrompt: "Prefer small diffs.",
    environment: "<env>\nWorking directory: /repo\n</env>",
    memory,
    tools,
    deferredIndex: "mcp__github__create_issue: Creates an issue",
    skills: "<available-skills>\n- pdf: Work with PDFs\n</available-skills>",
    history,
    ...overrides,
  };
}

function breakpoints(context: RequestContext): number {
  return (JSON.stringify(context).match(/"cache_control"/g) ?? []).length;
}

/** The request with every breakpoint removed: what the cache keys on. */
function withoutBreakpoints(context: RequestContext): unknown {
  return JSON.parse(JSON.stringify({ system: context.system, tools: context.tools, messages: context.messages }), (key, value) => (key === "cache_control" ? undefined : value));
}

const turn1: ModelMessage[] = [{ role: "user", content: "Fix the failing test" }];
const turn2: ModelMessage[] = [
  ...turn1,
  { role: "assistant", content: [{ type: "text", text: "Looking." }, { type: "tool_use", id: "t1", name: "Bash", input: { command: "npm test" } }] },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "1 failing" }] },
];

describe("assembleRequestContext", () => {
  test("fixed order: system prompt, environment, deferred tools, skills; then memory before the first user text", () => {
    const context = assembleRequestContext(input(turn1));
    assert.deepEqual(
      context.system.map((block) => block.text.split("\n")[0]),
      ["You are a coding agent.", "<env>", "The following deferred tools are available. Only their names are known until you load them: call ToolSearch (with \"select:<name>\" or keywords) to get a tool's schema, then call the tool.", "<available-skills>"],
    );
    assert.equal(context.system[0]!.text, "You are a coding agent.\n\nPrefer small diffs.");
    assert.match(context.system[2]!.text, /<available-deferred-tools>\nmcp__github__create_issue: Creates an issue\n<\/available-deferred-tools>/);
    assert.deepEqual(context.tools.map((tool) => tool.name), ["Read", "Bash"]);

    assert.equal(context.messages.length, 1);
    const first = context.messages[0]!;
    assert.ok(Array.isArray(first.content));
    const [reminder, text] = first.content as { type: string; text: string }[];
    assert.match(reminder!.text, /^<system-reminder>\n/);
    assert.match(reminder!.text, /<\/system-reminder>$/);
    const user = reminder!.text.indexOf("Contents of /home/u/.claude/CLAUDE.md (user's private global instructions for all projects):\n\nAlways answer in English.");
    const project = reminder!.text.indexOf("Contents of /repo/CLAUDE.md (project instructions, checked into the codebase):\n\nUse pnpm, not npm.");
    assert.ok(user > 0 && project > user, "user memory first, then project memory");
    assert.equal(text!.text, "Fix the failing test");
  });

  test("equal inputs give byte-identical requests", () => {
    assert.equal(JSON.stringify(assembleRequestContext(input(turn1))), JSON.stringify(assembleRequestContext(input(structuredClone(turn1)))));
  });

  test("the next turn's request starts with exactly the previous request (breakpoints aside)", () => {
    const first = withoutBreakpoints(assembleRequestContext(input(turn1))) as { system: unknown; tools: unknown; messages: unknown[] };
    const second = withoutBreakpoints(assembleRequestContext(input(turn2))) as { system: unknown; tools: unknown; messages: unknown[] };
    assert.deepEqual(second.system, first.system);
    assert.deepEqual(second.tools, first.tools);
    assert.deepEqual(second.messages.slice(0, first.messages.length), first.messages);
    assert.equal(JSON.stringify(second.messages[0]), JSON.stringify(first.messages[0]));
  });

  test("breakpoints: last tool, system prompt block, last system block, last message — never more than four", () => {
    const context = assembleRequestContext(input(turn2));
    assert.equal(breakpoints(context), MAX_CACHE_BREAKPOINTS);
    assert.deepEqual(context.tools.map((tool) => tool.cache_control), [undefined, { type: "ephemeral" }]);
    assert.deepEqual(context.system.map((block) => block.cache_control?.type), ["ephemeral", undefined, undefined, "ephemeral"]);
    const last = context.messages.at(-1)!.content as { cache_control?: unknown }[];
    assert.deepEqual(last.at(-1)!.cache_control, { type: "ephemeral" });
    assert.equal(JSON.stringify(context.messages.slice(0, -1)).includes("cache_control"), false);
  });

  test("stray breakpoints in the inputs are dropped, so the limit holds", () => {
    const dirtyHistory: ModelMessage[] = [
      { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral" } }] },
      { role: "assistant", content: [{ type: "text", text: "yo", cache_control: { type: "ephemeral" } }] },
      { role: "user", content: "next" },
    ];
    const dirtyTools = tools.map((tool) => ({ ...tool, cache_control: { type: "ephemeral" as const } }));
    const context = assembleRequestContext(input(dirtyHistory, { tools: dirtyTools }));
    assert.ok(breakpoints(context) <= MAX_CACHE_BREAKPOINTS);
    assert.deepEqual(context.messages.at(-1), { role: "user", content: [{ type: "text", text: "next", cache_control: { type: "ephemeral" } }] });
  });

  test("the inputs are left untouched", () => {
    const history = structuredClone(turn2);
    const toolCopy = structuredClone(tools);
    assembleRequestContext(input(history, { tools: toolCopy }));
    assert.deepEqual(history, turn2);
    assert.deepEqual(toolCopy, tools);
  });

  test("minimal input: no memory, no extras, no tools", () => {
    const context = assembleRequestContext({ systemPrompt: "S", environment: "", memory: [], tools: [], history: turn1 });
    assert.deepEqual(context.system, [{ type: "text", text: "S", cache_control: { type: "ephemeral" } }]);
    assert.deepEqual(context.tools, []);
    assert.deepEqual(context.messages, [{ role: "user", content: [{ type: "text", text: "Fix the failing test", cache_control: { type: "ephemeral" } }] }]);
    assert.equal(breakpoints(context), 2);
  });

  test("the breakpoint skips blocks that cannot carry one", () => {
    const history: ModelMessage[] = [{ role: "user", content: [{ type: "text", text: "look" }, { type: "text", text: "" }] }];
    const context = assembleRequestContext(input(history, { memory: [] }));
    assert.deepEqual(context.messages[0]!.content, [{ type: "text", text: "look", cache_control: { type: "ephemeral" } }, { type: "text", text: "" }]);
  });

  test("prefixTokens estimates system, tools and memory", () => {
    const without = assembleRequestContext(input(turn1, { memory: [] })).prefixTokens;
    const withMemory = assembleRequestContext(input(turn1)).prefixTokens;
    assert.ok(without > 50);
    assert.ok(withMemory > without);
  });

  test("prefixTokens counts the tools' JSON exactly, again when a tool is new", () => {
    const base = input(turn1, { memory: [] });
    const noTools = assembleRequestContext({ ...base, tools: [] }).prefixTokens;
    for (const tools of [base.tools, base.tools.slice(0, 1), [...base.tools, { name: "Extra", description: "ü".repeat(33), input_schema: { type: "object" as const } }]]) {
      const expected = noTools - 1 + Math.ceil(JSON.stringify(tools).length / 4);
      assert.equal(assembleRequestContext({ ...base, tools }).prefixTokens, expected);
      assert.equal(assembleRequestContext({ ...base, tools }).prefixTokens, expected, "the same again, from what was measured");
    }
  });
});
