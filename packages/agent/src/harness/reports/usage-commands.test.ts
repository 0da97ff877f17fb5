// /context and /cost: what the context window holds and what the conversation has cost, answered
// without a model call.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mcpTestServerCommand } from "@harness/test-utils";
import type { TranscriptEntry } from "../../compaction/types.ts";
import { runInProject, tempProject, type TempProject } from "../../testing/project.ts";
import { createAgentResources } from "../resources.ts";

/** One exchange of 8,000 characters: 2,000 tokens as the run estimates them. */
const HISTORY: TranscriptEntry[] = [
  { role: "user", content: "q".repeat(4000) },
  { role: "assistant", content: [{ type: "text", text: "a".repeat(4000) }] },
];

async function withMcpServer(project: TempProject): Promise<void> {
  const { command, args } = mcpTestServerCommand();
  await project.write(".mcp.json", JSON.stringify({ mcpServers: { x: { command, args } } }));
  await project.writeHome(".claude.json", JSON.stringify({ projects: { [project.root]: { enabledMcpjsonServers: ["x"] } } }));
}

/** The tokens a line of the /context table gives its part. */
function tokensOf(text: string, part: string): number {
  const match = new RegExp(`^\\s*${part}\\s+([\\d.]+)(k?) tokens`, "m").exec(text);
  assert.ok(match, `no line for ${part} in:\n${text}`);
  return Number(match[1]) * (match[2] === "k" ? 1000 : 1);
}

test("/context shows the model's window and what each part of the context takes, without a model call", async (t) => {
  const project = await tempProject(t);
  await project.write("CLAUDE.md", "Run the tests with make check.\n");
  await project.write(".claude/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Deploys to staging\n---\nDeploy.");
  await withMcpServer(project);
  const { provider, result, events } = await runInProject(project, [], { prompt: "/context", history: HISTORY, model: "claude-sonnet-4-6" });

  assert.equal(provider.requests.length, 0);
  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(result.transcript, HISTORY, "the conversation is left as it was");
  assert.deepEqual(events.filter((event) => event.type === "assistant.delta"), [{ type: "assistant.delta", text: result.result }]);
  const text = result.result;
  assert.match(text, /claude-sonnet-4-6/);
  assert.match(text, /of 200k tokens/);
  assert.equal(tokensOf(text, "Messages"), 2000);
  for (const part of ["System prompt", "Built-in tools", "MCP tools", "Memory files", "Skills"]) assert.ok(tokensOf(text, part) > 0, `${part} takes some tokens:\n${text}`);
  assert.ok(tokensOf(text, "Built-in tools") > tokensOf(text, "MCP tools"), text);
  assert.match(text, /CLAUDE\.md/, "the memory files are named");
  assert.match(text, /^\s*x\b.*tokens/m, "the MCP tools are counted by server");
  const used = /([\d.]+)k of 200k tokens \(([\d.]+)%\)/.exec(text);
  assert.ok(used, text);
  // Both figures are rounded from one count (to 0.1k and to 0.1%): they agree within those roundings.
  assert.ok(Math.abs(Number(used[2]) - ((Number(used[1]) * 1000) / 200_000) * 100) <= 0.075 + 1e-9, text);
  assert.match(text, /Free space/);
});

test("/context with a conversation that has just started counts no messages", async (t) => {
  const project = await tempProject(t);
  const { provider, result } = await runInProject(project, [], { prompt: "/context", model: "claude-sonnet-4-6" });
  assert.equal(provider.requests.length, 0);
  assert.equal(tokensOf(result.result, "Messages"), 0);
  assert.equal(tokensOf(result.result, "Memory files"), 0);
});

test("/cost adds up the conversation's earlier runs, their sub-agents included, without a model call", async (t) => {
  const project = await tempProject(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const usage = { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 5000, cacheWriteTokens: 800, costUsd: 0.0125 };
  const first = await runInProject(
    project,
    [
      { toolCalls: [{ name: "Task", input: { description: "Look", prompt: "Look around.", subagent_type: "general-purpose" } }], usage },
      { text: "Looked.", usage },
      { text: "Done.", usage },
    ],
    { resources },
  );
  assert.equal(first.result.stopReason, "end_turn");
  const { provider, result, events } = await runInProject(project, [], { prompt: "/cost", resources, history: first.result.transcript });

  assert.equal(provider.requests.length, 0);
  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(result.transcript, first.result.transcript);
  assert.deepEqual(events.filter((event) => event.type === "assistant.delta"), [{ type: "assistant.delta", text: result.result }]);
  const text = result.result;
  assert.match(text, /Total cost:\s+\$0\.0375\b/);
  assert.match(text, /Model calls:\s+3\b/);
  assert.match(text, /3\.6k input, 900 output, 15\.0k cache read, 2\.4k cache write/);
  assert.match(text, /Total duration \(API\):\s+\d/);
  assert.match(text, /Total duration \(wall\):\s+\d/);
});

test("/cost counts the conversation's web searches, whose fee is in its cost", async (t) => {
  const project = await tempProject(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const first = await runInProject(project, [{ text: "Searched.", usage: { inputTokens: 1000, outputTokens: 100, webSearchRequests: 2, costUsd: 0.0245 } }], { resources });
  const { result } = await runInProject(project, [], { prompt: "/cost", resources, history: first.result.transcript });
  assert.match(result.result, /Total cost:\s+\$0\.0245\b/);
  assert.match(result.result, /1\.0k input, 100 output, 0 cache read, 0 cache write, 2 web searches/);
});

test("/cost says the usage is not known when a model's server reported none, instead of counting 0 tokens", async (t) => {
  const project = await tempProject(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const reported = { inputTokens: 1000, outputTokens: 100 };
  const first = await runInProject(project, [{ toolCalls: [{ name: "Read", input: { file_path: "CLAUDE.md" } }], usage: reported }, { text: "Read it.", usage: { inputTokens: 0, outputTokens: 0, unreportedCalls: 1 } }], { resources, model: "ollama/qwen3:8b" });
  const { result } = await runInProject(project, [], { prompt: "/cost", resources, history: first.result.transcript });
  assert.match(result.result, /Model calls:\s+2\b/);
  assert.match(result.result, /Usage:\s+1\.0k input, 100 output, 0 cache read, 0 cache write — not known for 1 of 2 model calls \(their server reported no usage\)/);
});

test("/cost adds what the priced calls cost and counts the calls of a model without a known price apart", async (t) => {
  const project = await tempProject(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  // $3 and $15 a million tokens: 1000 in and 100 out cost $0.0045.
  const usage = { inputTokens: 1000, outputTokens: 100 };
  const first = await runInProject(project, [{ text: "Hi.", usage }], { resources, model: "claude-sonnet-4-6" });
  const second = await runInProject(project, [{ text: "Hi again.", usage }], { resources, model: "openai/qwen3-235b-a22b", history: first.result.transcript });
  const again = await runInProject(project, [{ text: "Once more.", usage }], { resources, model: "openai/qwen3-235b-a22b", history: second.result.transcript });
  const { result } = await runInProject(project, [], { prompt: "/cost", resources, model: "openai/qwen3-235b-a22b", history: again.result.transcript });
  assert.match(result.result, /Total cost:\s+\$0\.0045 \+ 2 calls of unknown price\n/);
  assert.match(result.result, /Model calls:\s+3\b/);
});

test("/cost after calls of a model without a price names that model's price as missing, not the model the conversation has moved on to", async (t) => {
  const project = await tempProject(t);
  const resources = createAgentResources();
  t.after(() => resources.dispose());
  const first = await runInProject(project, [{ text: "Hi.", usage: { inputTokens: 1000, outputTokens: 100 } }], { resources, model: "openai/qwen3-235b-a22b" });
  const moved = await runInProject(project, [], { prompt: "/cost", resources, model: "claude-sonnet-4-6", history: first.result.transcript });
  assert.match(moved.result.result, /Total cost:\s+not known \(the price of the model is not known\)\n/);
  const stayed = await runInProject(project, [], { prompt: "/cost", resources, model: "openai/qwen3-235b-a22b", history: first.result.transcript });
  assert.match(stayed.result.result, /Total cost:\s+not known \(no price for openai\/qwen3-235b-a22b\)\n/);
});

test("/cost at the start of a conversation says nothing has been spent", async (t) => {
  const project = await tempProject(t);
  const { provider, result } = await runInProject(project, [], { prompt: "/cost" });
  assert.equal(provider.requests.length, 0);
  assert.match(result.result, /Total cost:\s+\$0\.0000/);
  assert.match(result.result, /Model calls:\s+0\b/);
});

test("/help lists /context and /cost; a project's own command of either name wins over the built-in", async (t) => {
  const project = await tempProject(t);
  const help = await runInProject(project, [], { prompt: "/help" });
  assert.match(help.result.result, /^\s*\/context — /m);
  assert.match(help.result.result, /^\s*\/cost — /m);

  await project.write(".claude/commands/cost.md", "---\ndescription: Estimate the cost of the plan\n---\nEstimate what the plan will cost.");
  const own = await runInProject(project, [{ text: "About a week." }], { prompt: "/cost" });
  assert.equal(own.provider.requests.length, 1);
  assert.equal(own.result.result, "About a week.");
  const listed = await runInProject(project, [], { prompt: "/help" });
  assert.match(listed.result.result, /\/cost — Estimate the cost of the plan \(project command\)/);
  assert.equal(listed.result.result.match(/^\s*\/cost\b/gm)?.length, 1, listed.result.result);
});
