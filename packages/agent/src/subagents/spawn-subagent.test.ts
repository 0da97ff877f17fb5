import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";
import { runAgent } from "../loop/run-agent.ts";
import { assertValidTranscript, systemText, tempWorkspace, waitFor, withoutCacheMarks } from "../testing/fixtures.ts";
import { scriptedProvider, type ScriptedStep } from "../testing/scripted-provider.ts";
import { bashTool, editTool, globTool, grepTool, readTool, writeTool } from "../tools/index.ts";
import type { RunAgentOptions } from "../types.ts";
import { defaultModelResolver } from "./agent-model.ts";
import { builtinAgents } from "./builtin-agents.ts";
import { loadAgentDefinitions } from "./load-agents.ts";
import { createSubagentSpawner, type SubagentSpawnerDeps, subagentUsage } from "./spawn-subagent.ts";
import { bindSpawner, taskTool } from "./task-tool.ts";
import type { AgentDefinition, SubagentOutput } from "./types.ts";

const AGENT_ID = /^agent_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Setup = {
  cwd: string;
  agents?: AgentDefinition[];
  model?: string;
  deps?: Partial<SubagentSpawnerDeps>;
};

/** A main agent with the built-in tools and a Task tool wired to a real spawner, as a host does it. */
async function setup(t: TestContext, steps: ScriptedStep[], options: Setup) {
  const provider = scriptedProvider(steps);
  const events: AgentEvent[] = [];
  const controller = new AbortController();
  const parent: RunAgentOptions = {
    prompt: "Please help.",
    model: options.model ?? "test-model",
    provider,
    cwd: options.cwd,
    // The host wires the Task tool itself: the loop reads no configuration and runs every call.
    loadUserConfig: false,
    permissionMode: "bypassPermissions",
    signal: controller.signal,
    emit: (event) => events.push(event),
  };
  const allTools = [readTool, writeTool, editTool, bashTool, globTool, grepTool];
  const spawner = createSubagentSpawner({ runAgent, parent, allTools, ...options.deps });
  const outputs: SubagentOutput[] = [];
  const task = bindSpawner(taskTool(options.agents ?? builtinAgents()), async (request, ctx) => {
    const output = await spawner(request, ctx);
    outputs.push(output);
    return output;
  });
  parent.tools = [...allTools, task];
  t.after(() => controller.abort());
  return { provider, events, controller, parent, outputs };
}

function taskCall(id: string, subagentType: string, prompt: string) {
  return { id, name: "Task", input: { description: "Delegated work", prompt, subagent_type: subagentType } };
}

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

test("a Task call runs the sub-agent in a fresh conversation and its final text comes back as the tool result", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.writeFile(path.join(cwd, "notes.txt"), "alpha\n");
  const { provider, events, parent, outputs } = await setup(
    t,
    [
      { text: "Delegating.", toolCalls: [taskCall("toolu_task", "general-purpose", "What does notes.txt say?")], usage: { inputTokens: 100, outputTokens: 10 } },
      { toolCalls: [{ id: "toolu_sub_read", name: "Read", input: { file_path: "notes.txt" } }], usage: { inputTokens: 40, outputTokens: 4 } },
      { text: ["notes.txt ", "says alpha."], usage: { inputTokens: 60, outputTokens: 6 } },
      { text: "The notes say alpha.", usage: { inputTokens: 120, outputTokens: 8 } },
    ],
    { cwd },
  );
  const result = await runAgent(parent);

  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.result, "The notes say alpha.");
  assertValidTranscript(result.transcript);

  const [main, sub1, sub2, mainAgain] = provider.requests;
  assert.ok(main.tools?.some((tool) => tool.name === "Task"));
  assert.deepEqual(withoutCacheMarks(sub1.messages), [{ role: "user", content: "What does notes.txt say?" }]);
  assert.match(systemText(sub1), /carry out one task on its behalf/);
  assert.match(systemText(sub1), new RegExp(`Working directory: ${cwd}`));
  assert.equal(sub1.model, "test-model");
  assert.deepEqual(sub1.tools?.map((tool) => tool.name), ["Read", "Write", "Edit", "Bash", "Glob", "Grep"]);
  assert.deepEqual(resultsIn(withoutCacheMarks(sub2.messages).at(-1)), [{ type: "tool_result", tool_use_id: "toolu_sub_read", content: "     1\talpha" }]);
  assert.deepEqual(resultsIn(withoutCacheMarks(mainAgain.messages).at(-1)), [{ type: "tool_result", tool_use_id: "toolu_task", content: "notes.txt says alpha." }]);

  const fromSub = events.filter((e) => e.agentId !== undefined);
  const fromMain = events.filter((e) => e.agentId === undefined);
  assert.deepEqual(
    fromSub.map((e) => e.type),
    ["tool.started", "call.completed", "tool.completed", "assistant.delta", "assistant.delta", "call.completed"],
  );
  const agentId = fromSub[0].agentId ?? "";
  assert.match(agentId, AGENT_ID);
  for (const event of fromSub) {
    assert.equal(event.agentId, agentId);
    assert.equal(event.parentToolUseId, "toolu_task");
  }
  assert.ok(fromSub.some((e) => e.type === "tool.started" && e.toolUseId === "toolu_sub_read"));
  assert.ok(fromMain.every((e) => e.parentToolUseId === undefined));
  assert.deepEqual(
    fromMain.filter((e) => e.type !== "assistant.delta" && e.type !== "call.completed"),
    [
      { type: "tool.started", toolName: "Task", toolUseId: "toolu_task", input: taskCall("", "general-purpose", "What does notes.txt say?").input },
      { type: "tool.completed", toolUseId: "toolu_task", output: "notes.txt says alpha.", isError: false },
    ],
  );

  // The sub-agent's usage comes with its output, for the host to add to the main agent's.
  assert.equal(outputs.length, 1);
  assert.equal(outputs[0].agentId, agentId);
  assert.deepEqual(subagentUsage(outputs[0]), { inputTokens: 100, outputTokens: 10, unpricedCalls: 2 });
  assert.deepEqual(result.usage, { inputTokens: 220, outputTokens: 18, unpricedCalls: 2 });
  // Every model call, the main agent's and the sub-agent's, is reported once: together, the main
  // agent's usage and the sub-agent's that the host adds to it.
  const calls = events.flatMap((e) => (e.type === "call.completed" ? [e.usage] : []));
  assert.equal(calls.length, 4, "two of the main agent's, two of the sub-agent's");
  assert.deepEqual(
    calls.reduce((sum, u) => ({ inputTokens: sum.inputTokens + u.inputTokens, outputTokens: sum.outputTokens + u.outputTokens }), { inputTokens: 0, outputTokens: 0 }),
    { inputTokens: 320, outputTokens: 28 },
  );
});

test("onModelEvent hears the sub-agent's model calls too, each event stamped with the sub-agent and its Task call", async (t) => {
  const cwd = await tempWorkspace(t);
  const { events, parent } = await setup(t, [{ toolCalls: [taskCall("toolu_task", "general-purpose", "Say hi.")] }, { text: "Hi." }, { text: "Done." }], { cwd });
  const heard: string[] = [];
  parent.onModelEvent = (event, from) => {
    if (event.type === "text-delta" || event.type === "done") heard.push(`${from ? `${from.agentId} ${from.parentToolUseId}` : "main"} ${event.type}`);
  };
  await runAgent(parent);

  const agentId = events.find((event) => event.agentId !== undefined)?.agentId;
  assert.match(agentId ?? "", AGENT_ID);
  assert.deepEqual(heard, ["main done", `${agentId} toolu_task text-delta`, `${agentId} toolu_task done`, "main text-delta", "main done"]);
});

test("a sub-agent without Bash cannot run Bash: the model gets an error and nothing runs", async (t) => {
  const cwd = await tempWorkspace(t);
  const reader: AgentDefinition = { name: "reader", description: "Reads files", systemPrompt: "You only read.", tools: ["Read", "Task"], source: "project" };
  const { provider, parent } = await setup(
    t,
    [
      { toolCalls: [taskCall("toolu_task", "reader", "Create a file")] },
      { toolCalls: [{ id: "toolu_bash", name: "Bash", input: { command: "touch created-by-subagent" } }] },
      { text: "I cannot run commands." },
      { text: "Done." },
    ],
    { cwd, agents: [reader] },
  );
  const result = await runAgent(parent);

  assert.equal(result.stopReason, "end_turn");
  const sub = provider.requests[1];
  assert.deepEqual(sub.tools?.map((tool) => tool.name), ["Read"]);
  assert.equal(systemText(sub).startsWith("You only read."), true);
  assert.deepEqual(resultsIn(withoutCacheMarks(provider.requests[2].messages).at(-1)), [
    { type: "tool_result", tool_use_id: "toolu_bash", content: "Unknown tool: Bash. Available tools: Read", is_error: true },
  ]);
  await assert.rejects(fs.access(path.join(cwd, "created-by-subagent")));
  assert.equal(resultsIn(withoutCacheMarks(provider.requests[3].messages).at(-1))[0].content, "I cannot run commands.");
});

test("a custom agent from .claude/agents runs with its own system prompt, tools and model", async (t) => {
  const cwd = await tempWorkspace(t);
  const home = await tempWorkspace(t);
  await fs.mkdir(path.join(cwd, ".claude", "agents"), { recursive: true });
  await fs.writeFile(
    path.join(cwd, ".claude", "agents", "reviewer.md"),
    "---\nname: reviewer\ndescription: Reviews diffs for this project. Use proactively after changes.\ntools: Read, Grep\nmodel: haiku\n---\nYou are the project's reviewer. Answer LGTM or list the problems.\n",
  );
  const { agents, diagnostics } = await loadAgentDefinitions({ home, projectRoot: cwd });
  assert.deepEqual(diagnostics, []);
  const { provider, parent } = await setup(
    t,
    [{ toolCalls: [taskCall("toolu_task", "reviewer", "Review the last change.")] }, { text: "LGTM" }, { text: "The reviewer is happy." }],
    { cwd, agents, model: "claude-sonnet-4-6", deps: { resolveModel: defaultModelResolver({}) } },
  );
  const result = await runAgent(parent);

  assert.equal(result.result, "The reviewer is happy.");
  const task = provider.requests[0].tools?.find((tool) => tool.name === "Task");
  assert.match(task?.description ?? "", /- reviewer: Reviews diffs for this project\. Use proactively after changes\. \(Tools: Read, Grep\)/);
  const sub = provider.requests[1];
  assert.match(systemText(sub), /^You are the project's reviewer\. Answer LGTM or list the problems\.\n\n# Environment\n/);
  assert.equal(sub.model, "claude-haiku-4-5");
  assert.deepEqual(sub.tools?.map((tool) => tool.name), ["Read", "Grep"]);
  assert.equal(provider.requests[2].model, "claude-sonnet-4-6");
  assert.equal(resultsIn(withoutCacheMarks(provider.requests[2].messages).at(-1))[0].content, "LGTM");
});

test("cancelling the main run stops the sub-agent", async (t) => {
  const cwd = await tempWorkspace(t);
  const { provider, events, controller, parent, outputs } = await setup(
    t,
    [{ toolCalls: [taskCall("toolu_task", "Explore", "Search everything")] }, { text: "Searching", hang: true }],
    { cwd },
  );
  const run = runAgent(parent);
  await waitFor(() => (events.some((e) => e.type === "assistant.delta" && e.agentId !== undefined) ? true : undefined), "the sub-agent to start streaming");
  controller.abort();
  const result = await run;

  assert.equal(result.stopReason, "aborted");
  assert.equal(provider.requests.length, 2);
  assert.equal(provider.requests[1].signal?.aborted, true);
  assert.ok(events.some((e) => e.type === "tool.completed" && e.toolUseId === "toolu_task" && e.isError));
  const output = await waitFor(() => outputs[0], "the sub-agent to finish");
  assert.deepEqual([output.content, output.isError], ["Interrupted by user", true]);
  assertValidTranscript(result.transcript);
});

test("two Task calls in one reply run side by side, each sub-agent with its own id", async (t) => {
  const cwd = await tempWorkspace(t);
  const answer: ScriptedStep = (request) => ({ text: `answer to ${String(withoutCacheMarks(request.messages)[0].content)}` });
  const { events, parent, provider } = await setup(
    t,
    [{ toolCalls: [taskCall("toolu_a", "general-purpose", "question A"), taskCall("toolu_b", "Plan", "question B")] }, answer, answer, { text: "Both answered." }],
    { cwd },
  );
  const result = await runAgent(parent);

  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(
    resultsIn(withoutCacheMarks(provider.requests[3].messages).at(-1)).map((r) => [r.tool_use_id, r.content]),
    [
      ["toolu_a", "answer to question A"],
      ["toolu_b", "answer to question B"],
    ],
  );
  const idOf = (parentToolUseId: string) => new Set(events.filter((e) => e.parentToolUseId === parentToolUseId).map((e) => e.agentId));
  const [a] = idOf("toolu_a");
  const [b] = idOf("toolu_b");
  assert.equal(idOf("toolu_a").size, 1);
  assert.equal(idOf("toolu_b").size, 1);
  assert.notEqual(a, b);
});

test("the model gets an error for an unknown agent type, listing the available ones", async (t) => {
  const cwd = await tempWorkspace(t);
  const { provider, parent, outputs } = await setup(t, [{ toolCalls: [taskCall("toolu_task", "wizard", "Do magic")] }, { text: "ok" }], { cwd });
  await runAgent(parent);

  assert.deepEqual(resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1)), [
    {
      type: "tool_result",
      tool_use_id: "toolu_task",
      content: 'Unknown subagent_type "wizard". Available agent types: general-purpose, Explore, Plan. Call Task again with one of them.',
      is_error: true,
    },
  ]);
  assert.equal(outputs.length, 0);
});

test("an agent type given in the wrong case still finds its agent", async (t) => {
  const cwd = await tempWorkspace(t);
  const { provider, parent } = await setup(t, [{ toolCalls: [taskCall("toolu_task", "explore", "Look")] }, { text: "found" }, { text: "ok" }], { cwd });
  await runAgent(parent);
  assert.match(systemText(provider.requests[1]), /read-only agent that explores codebases/);
});

test("without a spawner the Task tool says sub-agents are unavailable", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = scriptedProvider([{ toolCalls: [taskCall("toolu_task", "Plan", "Plan it")] }, { text: "ok" }]);
  await runAgent({ prompt: "go", model: "m", provider, cwd, loadUserConfig: false, signal: new AbortController().signal, emit: () => {}, tools: [taskTool(builtinAgents())] });
  const [block] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.equal(block.is_error, true);
  assert.match(String(block.content), /Sub-agents are not available in this run/);
});

test("a sub-agent whose model call fails reports the failure, with what it wrote so far", async (t) => {
  const cwd = await tempWorkspace(t);
  const { provider, parent, outputs } = await setup(
    t,
    [{ toolCalls: [taskCall("toolu_task", "general-purpose", "Try")] }, { text: "Halfway there", error: "overloaded" }, { text: "It failed." }],
    { cwd },
  );
  await runAgent(parent);
  const [block] = resultsIn(withoutCacheMarks(provider.requests[2].messages).at(-1));
  assert.equal(block.is_error, true);
  assert.equal(block.content, "Halfway there\n\n[The general-purpose agent failed: overloaded]");
  assert.deepEqual(subagentUsage(outputs[0]), { inputTokens: 10, outputTokens: 5, unpricedCalls: 1 });
});

test("a sub-agent stops at its own turn limit, and the host can adjust its run options", async (t) => {
  const cwd = await tempWorkspace(t);
  const limited: AgentDefinition = { name: "brief", description: "One step only", systemPrompt: "Be brief.", maxTurns: 1, source: "user" };
  const configured: string[] = [];
  const { provider, parent } = await setup(
    t,
    [{ toolCalls: [taskCall("toolu_task", "brief", "Look around")] }, { text: "Checking", toolCalls: [{ name: "Glob", input: { pattern: "*" } }] }, { text: "ok" }],
    {
      cwd,
      agents: [limited],
      deps: {
        configure: (options, agent) => {
          configured.push(agent.name);
          return { ...options, systemPrompt: `${options.systemPrompt}\nConfigured.` };
        },
      },
    },
  );
  await runAgent(parent);
  assert.deepEqual(configured, ["brief"]);
  // The first system block is the system prompt the spawner built; the loop's environment follows.
  const system = provider.requests[1].system;
  assert.ok(Array.isArray(system));
  assert.match(system[0].text, /Configured\.$/);
  const [block] = resultsIn(withoutCacheMarks(provider.requests[2].messages).at(-1));
  assert.equal(block.is_error, true);
  assert.equal(block.content, "Checking\n\n[The brief agent stopped before finishing the task: it used up its 1 model turn.]");
});

test("the read-only built-in agents get only read-only tools and inherit a non-Claude model", async (t) => {
  const cwd = await tempWorkspace(t);
  const { provider, parent } = await setup(t, [{ toolCalls: [taskCall("toolu_task", "Explore", "Find the config")] }, { text: "It is in config.json" }, { text: "ok" }], { cwd });
  await runAgent(parent);
  const sub = provider.requests[1];
  assert.deepEqual(sub.tools?.map((tool) => tool.name), ["Read", "Bash", "Glob", "Grep"]);
  assert.equal(sub.model, "test-model");
  assert.match(systemText(sub), /READ-ONLY mode/);
});

test("a request to stop one Task call's sub-agent interrupts it alone: the call answers so and the run goes on", async (t) => {
  const cwd = await tempWorkspace(t);
  const { provider, events, parent } = await setup(
    t,
    [{ toolCalls: [taskCall("toolu_task", "general-purpose", "Look for a long time.")] }, { text: "Still looking", hang: true }, { text: "Stopped it; done." }],
    { cwd },
  );
  const stops = new Set<(toolUseId: string) => boolean>();
  parent.onStopAgent = (listener) => {
    stops.add(listener);
    return () => stops.delete(listener);
  };
  const running = runAgent(parent);
  await waitFor(() => (provider.requests.length === 2 ? true : undefined), "the sub-agent's request");
  const stop = (id: string) => [...stops].some((listener) => listener(id));
  assert.equal(stop("toolu_other"), false, "no sub-agent of another call");
  assert.equal(stop("toolu_task"), true);
  assert.equal(stop("toolu_task"), true, "asked again while it stops, it is still stopping");
  const result = await running;
  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.result, "Stopped it; done.");
  assert.deepEqual(resultsIn(withoutCacheMarks(provider.requests[2].messages).at(-1)), [{ type: "tool_result", tool_use_id: "toolu_task", content: "Interrupted by user", is_error: true }]);
  assert.ok(events.some((e) => e.type === "tool.completed" && e.toolUseId === "toolu_task" && e.isError));
  assert.equal(stops.size, 0, "the sub-agent stopped listening once it ended");
});

test("a stop asked while the Task call's PreToolUse hook still runs keeps its sub-agent from starting: the call answers interrupted and the run goes on", async (t) => {
  const cwd = await tempWorkspace(t);
  const { provider, parent } = await setup(t, [{ toolCalls: [taskCall("toolu_task", "general-purpose", "Look for a long time.")] }, { text: "Stopped before it began." }], { cwd });
  const stops = new Set<(toolUseId: string) => boolean>();
  parent.onStopAgent = (listener) => {
    stops.add(listener);
    return () => stops.delete(listener);
  };
  let hookRuns!: () => void;
  const hookRunning = new Promise<void>((resolve) => (hookRuns = resolve));
  let releaseHook!: () => void;
  const hookReleased = new Promise<void>((resolve) => (releaseHook = resolve));
  t.after(() => releaseHook());
  const call = async () => {
    hookRuns();
    await hookReleased;
    return {};
  };
  parent.hooks = { PreToolUse: [{ matcher: "Task", hooks: [{ type: "callback", id: "slow", call }] }] };
  const running = runAgent(parent);
  await hookRunning;
  const stop = (id: string) => [...stops].some((listener) => listener(id));
  assert.equal(stop("toolu_other"), false, "no sub-agent of another call");
  assert.equal(stop("toolu_task"), true, "the call's sub-agent is as good as stopped");
  releaseHook();
  const result = await running;
  assert.equal(result.result, "Stopped before it began.");
  assert.equal(provider.requests.length, 2, "the sub-agent asked the model nothing");
  assert.deepEqual(resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1)), [{ type: "tool_result", tool_use_id: "toolu_task", content: "Interrupted by user", is_error: true }]);
  assert.equal(stops.size, 0, "nothing listens once the call answered");
});
