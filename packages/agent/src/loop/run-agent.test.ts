import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { z } from "zod";
import type { ModelMessage, ToolResultBlock } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";
import { defineTool } from "../define-tool.ts";
import { runAgent } from "./run-agent.ts";
import { scriptedProvider } from "../testing/scripted-provider.ts";
import { assertValidTranscript, systemText, tempWorkspace, withoutCacheMarks } from "../testing/fixtures.ts";
import type { RunAgentOptions } from "../types.ts";

/** The loop alone: no configuration is read, and every tool call runs. */
function options(overrides: Partial<RunAgentOptions> & Pick<RunAgentOptions, "provider" | "cwd">, events: AgentEvent[] = []): RunAgentOptions {
  return {
    prompt: "hello",
    model: "test-model",
    loadUserConfig: false,
    permissionMode: "bypassPermissions",
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    ...overrides,
  };
}

function resultsIn(message: ModelMessage | undefined): ToolResultBlock[] {
  assert.ok(message && typeof message.content !== "string", "expected a message with content blocks");
  return message.content.filter((b): b is ToolResultBlock => b.type === "tool_result");
}

test("a text-only reply streams its deltas and ends the run", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = scriptedProvider([{ text: ["Hi", " there", "!"], usage: { inputTokens: 12, outputTokens: 3 } }]);
  const events: AgentEvent[] = [];
  const result = await runAgent(options({ provider, cwd }, events));

  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.result, "Hi there!");
  assert.equal(result.errorMessage, undefined);
  assert.deepEqual(events, [
    { type: "assistant.delta", text: "Hi" },
    { type: "assistant.delta", text: " there" },
    { type: "assistant.delta", text: "!" },
    { type: "call.completed", usage: { inputTokens: 12, outputTokens: 3, unpricedCalls: 1 } },
  ]);
  assert.deepEqual(result.transcript, [
    { role: "user", content: "hello" },
    { role: "assistant", content: [{ type: "text", text: "Hi there!" }] },
  ]);
  assert.deepEqual(result.usage, { inputTokens: 12, outputTokens: 3, unpricedCalls: 1 }, "test-model has no known price");

  const [request] = provider.requests;
  assert.equal(request.model, "test-model");
  assert.match(systemText(request), new RegExp(`Working directory: ${cwd}`));
  assert.deepEqual(request.tools?.map((tool) => tool.name), ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "BashOutput", "KillShell", "Glob", "Grep", "TodoWrite", "WebFetch", "WebSearch", "ExitPlanMode"]);
  const read = request.tools?.find((tool) => tool.name === "Read");
  assert.deepEqual(read?.input_schema.required, ["file_path"]);
  assert.equal(read?.input_schema.$schema, undefined);
});

test("a tool call runs and its result is sent back in the next request", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.writeFile(path.join(cwd, "notes.txt"), "alpha\nbeta\n");
  const provider = scriptedProvider([
    { text: "Let me look.", toolCalls: [{ id: "toolu_1", name: "Read", input: { file_path: "notes.txt" } }], usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 50 } },
    { text: "It has two lines.", usage: { inputTokens: 150, outputTokens: 10, cacheReadTokens: 90 } },
  ]);
  const events: AgentEvent[] = [];
  const result = await runAgent(options({ provider, cwd, prompt: "What is in notes.txt?" }, events));

  assert.equal(result.stopReason, "end_turn");
  assert.equal(result.result, "It has two lines.");
  assert.deepEqual(result.usage, { inputTokens: 250, outputTokens: 30, cacheReadTokens: 140, unpricedCalls: 2 });
  assert.deepEqual(
    events.filter((e) => e.type !== "assistant.delta"),
    [
      { type: "tool.started", toolName: "Read", toolUseId: "toolu_1", input: { file_path: "notes.txt" } },
      { type: "call.completed", usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 50, unpricedCalls: 1 } },
      { type: "tool.completed", toolUseId: "toolu_1", output: "     1\talpha\n     2\tbeta", isError: false },
      { type: "call.completed", usage: { inputTokens: 150, outputTokens: 10, cacheReadTokens: 90, unpricedCalls: 1 } },
    ],
  );
  assert.equal(provider.requests.length, 2);
  const sent = withoutCacheMarks(provider.requests[1].messages);
  assert.equal(sent.length, 3);
  assert.deepEqual(resultsIn(sent[2]), [{ type: "tool_result", tool_use_id: "toolu_1", content: "     1\talpha\n     2\tbeta" }]);
  assertValidTranscript(result.transcript);
  assert.equal(result.transcript.length, 4);
});

test("blank text before a tool call, and a tool that fails or answers without a word, leave nothing the API refuses", async (t) => {
  const cwd = await tempWorkspace(t);
  const silent = (isError: boolean) =>
    defineTool({
      name: isError ? "Fails" : "Quiet",
      description: "says nothing",
      parameters: z.object({}),
      execute: async () => ({ content: " \n", isError }),
    });
  const provider = scriptedProvider([
    {
      text: "\n\n",
      toolCalls: [
        { id: "toolu_1", name: "Fails", input: {} },
        { id: "toolu_2", name: "Quiet", input: {} },
      ],
    },
    { text: "Done." },
  ]);
  const result = await runAgent(options({ provider, cwd, tools: [silent(true), silent(false)] }));
  assert.equal(result.result, "Done.");
  const sent = withoutCacheMarks(provider.requests[1].messages);
  assert.deepEqual(sent[1], {
    role: "assistant",
    content: [
      { type: "tool_use", id: "toolu_1", name: "Fails", input: {} },
      { type: "tool_use", id: "toolu_2", name: "Quiet", input: {} },
    ],
  });
  assert.deepEqual(resultsIn(sent[2]), [
    { type: "tool_result", tool_use_id: "toolu_1", content: "Tool failed without output", is_error: true },
    { type: "tool_result", tool_use_id: "toolu_2", content: "Tool ran without output or errors" },
  ]);
  assertValidTranscript(result.transcript);
});

test("a refusal runs none of the reply's tool calls, says why, and leaves the refused prompt out of the conversation", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = scriptedProvider([
    { text: "I can't", toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "touch ran.txt" } }], stopReason: "refusal", refusal: "This request could enable harm. (general_harms)" },
  ]);
  const events: AgentEvent[] = [];
  const history: ModelMessage[] = [
    { role: "user", content: "earlier" },
    { role: "assistant", content: [{ type: "text", text: "ok" }] },
  ];
  const result = await runAgent(options({ provider, cwd, prompt: "do the bad thing", history }, events));
  assert.equal(result.stopReason, "error");
  assert.equal(result.errorMessage, "The model declined to answer: This request could enable harm. (general_harms) (stop reason: refusal).");
  await assert.rejects(fs.stat(path.join(cwd, "ran.txt")), "the refused call did not run");
  assert.deepEqual(
    events.filter((e) => e.type === "tool.completed"),
    [{ type: "tool.completed", toolUseId: "toolu_1", output: "Not run: the model's reply was a refusal.", isError: true }],
  );
  assert.ok(events.some((e) => e.type === "notice" && /left out of the conversation/.test(e.message)));
  assert.deepEqual(result.transcript, history);
});

test("what retried attempts used counts in the run's usage, not in a turn's (which measures the context)", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = scriptedProvider([{ text: "ok", usage: { inputTokens: 100, outputTokens: 5 }, abandonedUsage: { inputTokens: 100, outputTokens: 2 } }]);
  const result = await runAgent(options({ provider, cwd }));
  assert.deepEqual(result.usage, { inputTokens: 200, outputTokens: 7, unpricedCalls: 1 });
  assert.deepEqual(result.turns, [{ inputTokens: 100, outputTokens: 5, unpricedCalls: 1 }]);
});

test("tool calls of one reply run at the same time and their results keep the calls' order", async (t) => {
  const cwd = await tempWorkspace(t);
  // Each command waits for the other to have started, so they can only both succeed if they overlap.
  // "first" then lingers, so it finishes after "second".
  const rendezvous = (mine: string, theirs: string, linger: string) =>
    `touch ${mine}; for i in $(seq 400); do [ -e ${theirs} ] && break; sleep 0.05; done; [ -e ${theirs} ] || { echo "never saw ${theirs}"; exit 1; }; sleep ${linger}; echo ${mine} done`;
  const provider = scriptedProvider([
    {
      toolCalls: [
        { id: "toolu_a", name: "Bash", input: { command: rendezvous("first", "second", "0.5") } },
        { id: "toolu_b", name: "Bash", input: { command: rendezvous("second", "first", "0") } },
      ],
    },
    { text: "Both ran." },
  ]);
  const events: AgentEvent[] = [];
  const result = await runAgent(options({ provider, cwd }, events));

  assert.equal(result.stopReason, "end_turn");
  const completed = events.filter((e) => e.type === "tool.completed");
  assert.deepEqual(completed.map((e) => e.toolUseId), ["toolu_b", "toolu_a"]);
  const results = resultsIn(provider.requests[1].messages[2]);
  assert.deepEqual(
    results.map((r) => [r.tool_use_id, r.content, r.is_error ?? false]),
    [
      ["toolu_a", "first done", false],
      ["toolu_b", "second done", false],
    ],
  );
});

test("invalid tool arguments come back to the model as an error naming each bad field", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = scriptedProvider([
    { toolCalls: [{ id: "toolu_1", name: "Read", input: { file_path: 42, offset: "ten", colour: "red" } }] },
    { toolCalls: [{ id: "toolu_2", name: "Bash", input: {} }] },
    { text: "ok" },
  ]);
  const result = await runAgent(options({ provider, cwd }));

  const [first] = resultsIn(provider.requests[1].messages.at(-1));
  assert.equal(first.is_error, true);
  assert.match(String(first.content), /Invalid arguments for Read/);
  assert.match(String(first.content), /parameter "file_path" must be a string, but got number 42/);
  assert.match(String(first.content), /parameter "offset" must be a number, but got string "ten"/);
  assert.match(String(first.content), /unexpected parameter "colour"/);
  const [second] = resultsIn(provider.requests[2].messages.at(-1));
  assert.match(String(second.content), /missing required parameter "command" \(expected string\)/);
  assert.equal(result.stopReason, "end_turn");
});

test("an unknown tool gets an error listing the available tools", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = scriptedProvider([{ toolCalls: [{ id: "toolu_1", name: "Teleport", input: {} }] }, { text: "sorry" }]);
  const events: AgentEvent[] = [];
  await runAgent(options({ provider, cwd }, events));

  const [block] = resultsIn(withoutCacheMarks(provider.requests[1].messages).at(-1));
  assert.deepEqual(block, {
    type: "tool_result",
    tool_use_id: "toolu_1",
    content: "Unknown tool: Teleport. Available tools: Read, Write, Edit, MultiEdit, NotebookEdit, Bash, BashOutput, KillShell, Glob, Grep, TodoWrite, WebFetch, WebSearch, ExitPlanMode",
    is_error: true,
  });
  assert.ok(events.some((e) => e.type === "tool.completed" && e.toolUseId === "toolu_1" && e.isError));
});

test("custom tools: thrown errors become error results and long output is truncated", async (t) => {
  const cwd = await tempWorkspace(t);
  const explode = defineTool({
    name: "Explode",
    description: "Always fails.",
    parameters: z.object({}),
    async execute() {
      throw new Error("the fuse was lit");
    },
  });
  const flood = defineTool({
    name: "Flood",
    description: "Returns a lot of text.",
    parameters: z.object({ size: z.number() }),
    async execute({ size }) {
      return { content: "x".repeat(size) };
    },
  });
  const provider = scriptedProvider([
    {
      toolCalls: [
        { id: "toolu_1", name: "Explode" },
        { id: "toolu_2", name: "Flood", input: { size: 45_000 } },
      ],
    },
    { text: "done" },
  ]);
  await runAgent(options({ provider, cwd, tools: [explode, flood] }));

  const [exploded, flooded] = resultsIn(provider.requests[1].messages.at(-1));
  assert.deepEqual(exploded, { type: "tool_result", tool_use_id: "toolu_1", content: "Error: the fuse was lit", is_error: true });
  const text = String(flooded.content);
  assert.ok(text.startsWith("x".repeat(30_000)));
  assert.ok(!text.startsWith("x".repeat(30_001)));
  assert.match(text, /Output truncated: 15,000 of 45,000 characters were cut/);
  assert.deepEqual(provider.requests[0].tools?.map((tool) => tool.name), ["Explode", "Flood"]);
});

test("the run stops at maxTurns with a valid transcript", async (t) => {
  const cwd = await tempWorkspace(t);
  const again = () => ({ toolCalls: [{ name: "Bash", input: { command: "echo again" } }] });
  const provider = scriptedProvider([again, again, again, again]);
  const result = await runAgent(options({ provider, cwd, maxTurns: 2 }));

  assert.equal(result.stopReason, "max_turns");
  assert.match(result.errorMessage ?? "", /maximum of 2 model turns/);
  assert.equal(provider.requests.length, 2);
  assertValidTranscript(result.transcript);
  assert.equal(result.transcript.length, 5);
  assert.deepEqual(result.usage, { inputTokens: 20, outputTokens: 10, unpricedCalls: 2 });
});

test("a model failure ends the run with the provider's message", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = scriptedProvider([
    { toolCalls: [{ name: "Bash", input: { command: "echo one" } }] },
    { text: "Halfway", error: "529 overloaded_error: Overloaded" },
  ]);
  const result = await runAgent(options({ provider, cwd }));

  assert.equal(result.stopReason, "error");
  assert.equal(result.errorMessage, "529 overloaded_error: Overloaded");
  assert.equal(result.result, "Halfway");
  assertValidTranscript(result.transcript);
});

test("a model failure in the middle of a tool call leaves no unanswered tool call", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = scriptedProvider([{ toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "echo hi" } }], error: "stream broke" }]);
  const events: AgentEvent[] = [];
  const result = await runAgent(options({ provider, cwd }, events));

  assert.equal(result.stopReason, "error");
  assertValidTranscript(result.transcript);
  assert.ok(events.some((e) => e.type === "tool.completed" && e.toolUseId === "toolu_1" && e.isError));
  assert.ok(!(await fs.readdir(cwd)).length, "the tool must not have run");
});

test("a provider that throws instead of reporting a failure still ends the run cleanly", async (t) => {
  const cwd = await tempWorkspace(t);
  const provider = {
    name: "broken",
    async *stream() {
      throw new Error("socket hang up");
    },
  };
  const result = await runAgent(options({ provider, cwd }));
  assert.equal(result.stopReason, "error");
  assert.match(result.errorMessage ?? "", /socket hang up/);
  assert.deepEqual(result.transcript, [{ role: "user", content: "hello" }]);
});

test("history is sent first, the prompt joins a trailing user message, and systemPrompt replaces the default", async (t) => {
  const cwd = await tempWorkspace(t);
  const history: ModelMessage[] = [
    { role: "user", content: "run it" },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_0", name: "Bash", input: { command: "true" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_0", content: "Interrupted by user", is_error: true }] },
  ];
  const provider = scriptedProvider([{ text: "Continuing." }]);
  const result = await runAgent(options({ provider, cwd, history, prompt: "go on", systemPrompt: "Be brief." }));

  const sent = provider.requests[0];
  assert.ok(Array.isArray(sent.system));
  assert.equal(sent.system[0]?.text, "Be brief.");
  assert.doesNotMatch(systemText(sent), /interactive coding agent/);
  assert.equal(sent.messages.length, 3);
  assert.deepEqual(withoutCacheMarks(sent.messages)[2].content, [
    { type: "tool_result", tool_use_id: "toolu_0", content: "Interrupted by user", is_error: true },
    { type: "text", text: "go on" },
  ]);
  assert.equal(history.length, 3, "the caller's history is not modified");
  assertValidTranscript(result.transcript);
});

test("steer messages reach the model at the next turn boundary, with the tool results, and keep a finishing run going", async (t) => {
  const cwd = await tempWorkspace(t);
  const inbox: string[] = [];
  const provider = scriptedProvider([
    { toolCalls: [{ id: "toolu_1", name: "Bash", input: { command: "echo one" } }] },
    (request) => {
      inbox.push("and add a changelog entry");
      return { text: `Seen: ${JSON.stringify(request.messages.at(-1)?.content).includes("use tabs")}` };
    },
    { text: "Changelog done." },
  ]);
  const events: AgentEvent[] = [];
  const result = await runAgent(
    options(
      {
        provider,
        cwd,
        steering: { take: () => inbox.splice(0) },
        emit: (event) => {
          events.push(event);
          if (event.type === "tool.started") inbox.push("use tabs");
        },
      },
      events,
    ),
  );

  assert.equal(result.stopReason, "end_turn");
  assert.equal(provider.requests.length, 3);
  assert.deepEqual(withoutCacheMarks(provider.requests[1].messages).at(-1)?.content, [
    { type: "tool_result", tool_use_id: "toolu_1", content: "one" },
    { type: "text", text: "use tabs" },
  ]);
  assert.deepEqual(withoutCacheMarks(provider.requests[2].messages).slice(-2), [
    { role: "assistant", content: "Seen: true" },
    { role: "user", content: "and add a changelog entry" },
  ]);
  assert.deepEqual(
    events.filter((e) => e.type === "user.message"),
    [
      { type: "user.message", text: "use tabs", steer: true },
      { type: "user.message", text: "and add a changelog entry", steer: true },
    ],
  );
  assertValidTranscript(result.transcript);
  assert.equal(result.result, "Changelog done.");
});
