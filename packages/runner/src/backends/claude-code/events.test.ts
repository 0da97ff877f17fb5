// The mapping of Claude Code's messages to runner events, on messages shaped as Claude Code sends them.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";
import { RunnerEventSchema, type AgentEvent } from "@harness/protocol";
import { costUsd } from "@harness/llm";
import { createEventMapper, resultText } from "./events.ts";

const session = "5f1c2b8e-1111-4222-8333-944455556666";
const sdk = (m: Record<string, unknown>) => ({ session_id: session, uuid: crypto.randomUUID(), parent_tool_use_id: null, ...m }) as unknown as SDKMessage;
const stream = (event: Record<string, unknown>, parent: string | null = null) => sdk({ type: "stream_event", event, parent_tool_use_id: parent });
const assistant = (id: string, content: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  sdk({ type: "assistant", message: { id, model: "claude-test", role: "assistant", content, usage: {} }, ...extra });
const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 });

function mapped(messages: SDKMessage[]) {
  const events: AgentEvent[] = [];
  const mapper = createEventMapper((e) => events.push(e));
  for (const m of messages) mapper.handle(m);
  return { events, run: mapper.run };
}

test("streamed text becomes deltas; the complete block that follows is not sent again; usage is taken per call", () => {
  const { events, run } = mapped([
    sdk({ type: "system", subtype: "init", model: "claude-test", cwd: "/w", tools: [] }),
    sdk({ type: "user", message: { role: "user", content: "hi" }, isReplay: true, uuid: "prompt-uuid" }),
    stream({ type: "message_start", message: { id: "msg_1", usage: usage(100, 1) } }),
    stream({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } }),
    assistant("msg_1", [{ type: "text", text: "Hello" }]),
    stream({ type: "content_block_stop", index: 0 }),
    stream({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: usage(100, 7) }),
    stream({ type: "message_stop" }),
  ]);
  assert.deepEqual(events, [
    { type: "run.ready", available: { model: "claude-test", slashCommands: [], tools: [], mcpServers: [], agents: [], skills: [], outputStyle: "default" } },
    { type: "assistant.delta", text: "Hel" },
    { type: "assistant.delta", text: "lo" },
    { type: "call.completed", callId: "msg_1", usage: { inputTokens: 100, outputTokens: 7, cacheReadTokens: 5, cacheWriteTokens: 0 } },
  ]);
  assert.deepEqual(run.turns, [{ inputTokens: 100, outputTokens: 7, cacheReadTokens: 5, cacheWriteTokens: 0 }]);
  assert.equal(run.promptUuid, "prompt-uuid");
  assert.equal(run.promptsTaken, 1);
  assert.equal(run.sessionId, session);
  assert.equal(run.model, "claude-test");
  assert.deepEqual(run.transcript, [
    { role: "user", content: "hi" },
    { role: "assistant", content: [{ type: "text", text: "Hello" }] },
  ]);
});

test("a stream Claude Code abandons (it broke off and is asked again) withdraws the text it sent; the answer that follows is sent whole", () => {
  const { events, run } = mapped([
    stream({ type: "message_start", message: { id: "msg_1", usage: usage(100, 1) } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "The answer " } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "is " } }),
    sdk({ type: "stream_event", event: { type: "message_stop" }, abandoned_blocks: { api_message_id: "msg_1", from_block_index: 0 } }),
    assistant("msg_2", [{ type: "text", text: "The answer is 42." }]),
  ]);
  assert.deepEqual(events, [
    { type: "assistant.delta", text: "The answer " },
    { type: "assistant.delta", text: "is " },
    { type: "assistant.retracted", text: "The answer is " },
    { type: "assistant.delta", text: "The answer is 42." },
  ]);
  assert.deepEqual(run.transcript, [{ role: "assistant", content: [{ type: "text", text: "The answer is 42." }] }]);
  const finished = mapped([
    stream({ type: "message_start", message: { id: "msg_1", usage: usage(100, 1) } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Done." } }),
    stream({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: usage(100, 2) }),
    stream({ type: "message_stop" }),
  ]);
  assert.equal(finished.events.filter((e) => e.type === "assistant.retracted").length, 0, "a stream that ends well withdraws nothing");
});

test("a tool call starts when its block is complete and finishes with the result Claude Code sends back", () => {
  const { events, run } = mapped([
    assistant("msg_2", [{ type: "text", text: "Let me look." }]),
    assistant("msg_2", [{ type: "tool_use", id: "toolu_a", name: "Write", input: { file_path: "/w/a.txt", content: "x" } }]),
    sdk({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_a", content: "File created successfully at: /w/a.txt" }] },
      tool_use_result: { type: "create", filePath: "/w/a.txt", content: "x" },
    }),
    assistant("msg_3", [{ type: "tool_use", id: "toolu_b", name: "Bash", input: { command: "false" } }]),
    sdk({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_b", is_error: true, content: [{ type: "text", text: "Exit code 1" }] }] },
    }),
  ]);
  assert.deepEqual(events, [
    { type: "assistant.delta", text: "Let me look." },
    { type: "tool.started", toolName: "Write", toolUseId: "toolu_a", input: { file_path: "/w/a.txt", content: "x" } },
    { type: "tool.completed", toolUseId: "toolu_a", output: "File created successfully at: /w/a.txt", isError: false },
    { type: "tool.started", toolName: "Bash", toolUseId: "toolu_b", input: { command: "false" } },
    { type: "tool.completed", toolUseId: "toolu_b", output: "Exit code 1", isError: true },
  ]);
  assert.deepEqual(run.createdFiles, ["/w/a.txt"]);
  // The two blocks of msg_2 form one assistant message.
  assert.deepEqual(
    run.transcript.map((m) => [m.role, Array.isArray(m.content) ? m.content.length : 1]),
    [["assistant", 2], ["user", 1], ["assistant", 1], ["user", 1]],
  );
});

test("sub-agent events carry the task's agent id and the Agent tool call that started it, and stay out of the transcript", () => {
  const { events, run } = mapped([
    assistant("msg_main", [{ type: "tool_use", id: "toolu_task", name: "Agent", input: { prompt: "look around", subagent_type: "Explore" } }]),
    sdk({ type: "system", subtype: "task_started", task_id: "a-task-7", tool_use_id: "toolu_task", description: "look" }),
    assistant("msg_sub", [{ type: "text", text: "sub-agent here" }], { parent_tool_use_id: "toolu_task" }),
    assistant("msg_sub2", [{ type: "tool_use", id: "toolu_sub", name: "Bash", input: { command: "ls" } }], { parent_tool_use_id: "toolu_task", agent_id: "a-task-7" }),
    sdk({ type: "user", parent_tool_use_id: "toolu_task", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_sub", content: "a.txt" }] } }),
  ]);
  const sub = { agentId: "a-task-7", parentToolUseId: "toolu_task" };
  assert.deepEqual(events.slice(1), [
    { type: "assistant.delta", ...sub, text: "sub-agent here" },
    { type: "tool.started", ...sub, toolName: "Bash", toolUseId: "toolu_sub", input: { command: "ls" } },
    { type: "tool.completed", ...sub, toolUseId: "toolu_sub", output: "a.txt", isError: false },
  ]);
  assert.equal(run.transcript.length, 1);
});

test("replayed steer messages count as taken, and reach the session as Claude Code takes them; tool results and sub-agent prompts do not", () => {
  const { run, events } = mapped([
    sdk({ type: "user", message: { role: "user", content: "first" }, isReplay: true, uuid: "u-1" }),
    sdk({ type: "user", message: { role: "user", content: [{ type: "text", text: "steer" }] }, isReplay: true, uuid: "u-2" }),
    sdk({ type: "user", parent_tool_use_id: "toolu_x", message: { role: "user", content: "sub prompt" }, isReplay: true }),
    sdk({ type: "user", message: { role: "user", content: "[Request interrupted by user]" } }),
  ]);
  assert.equal(run.promptsTaken, 2);
  assert.deepEqual(events, [{ type: "user.message", text: "steer", steer: true }], "the prompt is not a steer");
  assert.equal(run.promptUuid, "u-1");
  assert.deepEqual(run.transcript, [
    { role: "user", content: "first" },
    { role: "user", content: [{ type: "text", text: "steer" }] },
  ]);
});

test("a rejected key, from a retry notice or an assistant error, marks the run", () => {
  assert.equal(mapped([sdk({ type: "system", subtype: "api_retry", attempt: 1, error: "authentication_failed", error_status: 401 })]).run.authFailed, true);
  assert.equal(mapped([assistant("m", [{ type: "text", text: "Invalid API key" }], { error: "authentication_failed" })]).run.authFailed, true);
  assert.equal(mapped([sdk({ type: "system", subtype: "api_retry", attempt: 1, error: "overloaded", error_status: 529 })]).run.authFailed, false);
});

test("each retry Claude Code announces is a notice with the error, the wait and the attempt, in words and in fields; a rejected key is not", () => {
  const retry = (m: Record<string, unknown>) => sdk({ type: "system", subtype: "api_retry", max_retries: 10, ...m });
  const { events } = mapped([
    retry({ attempt: 1, retry_delay_ms: 520.4, error: "server_error", error_status: 500 }),
    retry({ attempt: 2, retry_delay_ms: 1201, error: "unknown", error_status: null }),
    retry({ attempt: 1, retry_delay_ms: 500, error: "authentication_failed", error_status: 401 }),
  ]);
  assert.deepEqual(events, [
    {
      type: "notice",
      level: "warning",
      message: "The model request failed (HTTP 500, server_error); trying again in 520 ms (attempt 2 of 11).",
      retry: { attempt: 1, maxAttempts: 11, status: 500, error: "server_error", delayMs: 520 },
    },
    { type: "notice", level: "warning", message: "The model request failed (unknown); trying again in 1.2 s (attempt 3 of 11).", retry: { attempt: 2, maxAttempts: 11, error: "unknown", delayMs: 1201 } },
  ]);
});

test("tool result content reads as text, images and documents (a PDF Read returns) as placeholders", () => {
  assert.equal(resultText("plain"), "plain");
  assert.equal(resultText([{ type: "text", text: "a" }, { type: "image", source: {} }, { type: "text", text: "b" }]), "a\n[image]\nb");
  assert.equal(resultText([{ type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } }, { type: "text", text: "Read PDF a.pdf" }]), "[document]\nRead PDF a.pdf");
  assert.equal(resultText(undefined), "");
});

test("what Claude Code tells its user between messages (a refusal it goes on from) becomes a notice; its transcript-only lines do not", () => {
  const { events } = mapped([
    sdk({ type: "system", subtype: "informational", level: "notice", content: "The model's safeguards stopped the response above · continuing once with that noted" }),
    sdk({ type: "system", subtype: "informational", level: "warning", content: "A Stop hook stopped the run" }),
    sdk({ type: "system", subtype: "informational", level: "info", content: "transcript only" }),
    sdk({ type: "system", subtype: "informational", level: "notice", content: "progress", tool_use_id: "toolu_1" }),
    sdk({ type: "system", subtype: "model_refusal_no_fallback", original_model: "m", request_id: null, content: "The model declined to answer." }),
  ]);
  assert.deepEqual(events, [
    { type: "notice", level: "info", message: "The model's safeguards stopped the response above · continuing once with that noted" },
    { type: "notice", level: "warning", message: "A Stop hook stopped the run" },
    { type: "notice", level: "warning", message: "The model declined to answer." },
  ]);
});

test("Claude Code's init message says what the run has available, as the builtin loop's run.ready does; a second init (a resumed turn) says it again only if it changed", () => {
  const init = {
    type: "system",
    subtype: "init",
    model: "claude-sonnet-4-5",
    cwd: "/w",
    tools: ["Bash", "Read", "mcp__docs__search"],
    mcp_servers: [{ name: "docs", status: "connected", source: "project" }, { name: "jira", status: "needs-auth" }],
    slash_commands: ["compact", "deploy", "mcp__docs__summarize"],
    agents: ["general-purpose"],
    skills: ["lint"],
    output_style: "Explanatory",
    permissionMode: "default",
    apiKeySource: "ANTHROPIC_API_KEY",
  };
  const { events } = mapped([sdk(init), sdk(init), sdk({ ...init, mcp_servers: [{ name: "docs", status: "failed" }] })]);
  assert.deepEqual(events, [
    {
      type: "run.ready",
      available: {
        model: "claude-sonnet-4-5",
        slashCommands: ["compact", "deploy", "mcp__docs__summarize"],
        tools: ["Bash", "Read", "mcp__docs__search"],
        mcpServers: [{ name: "docs", status: "connected" }, { name: "jira", status: "needs-auth" }],
        agents: ["general-purpose"],
        skills: ["lint"],
        outputStyle: "Explanatory",
      },
    },
    {
      type: "run.ready",
      available: {
        model: "claude-sonnet-4-5",
        slashCommands: ["compact", "deploy", "mcp__docs__summarize"],
        tools: ["Bash", "Read", "mcp__docs__search"],
        mcpServers: [{ name: "docs", status: "failed" }],
        agents: ["general-purpose"],
        skills: ["lint"],
        outputStyle: "Explanatory",
      },
    },
  ]);
});

test("an init message of another Claude Code version (no model, a server without a status, a name that is no string) still makes a run.ready the session takes, not one that ends the run", () => {
  const init = { type: "system", subtype: "init", cwd: "/w", tools: ["Bash", 7], mcp_servers: [{ name: "docs" }, null], slash_commands: null, permissionMode: "default", apiKeySource: "none" };
  const { events } = mapped([sdk(init)]);
  assert.equal(events.length, 1);
  const parsed = RunnerEventSchema.safeParse({ ...events[0], seq: 1 });
  assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
  assert.deepEqual((events[0] as Extract<AgentEvent, { type: "run.ready" }>).available, { model: "", slashCommands: [], tools: ["Bash"], mcpServers: [{ name: "docs", status: "unknown" }], agents: [], skills: [], outputStyle: "default" });
});

test("each model call is reported once as it ends: a streamed one at its message_delta, a sub-agent's at the first of its lines; a malformed usage is not", () => {
  const { events } = mapped([
    stream({ type: "message_start", message: { id: "msg_1", model: "claude-test", usage: usage(100, 1) } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }),
    assistant("msg_1", [{ type: "text", text: "Hi" }], { message: { id: "msg_1", model: "claude-test", role: "assistant", content: [{ type: "text", text: "Hi" }], usage: usage(100, 1) } }),
    stream({ type: "message_delta", delta: { stop_reason: "tool_use" }, usage: usage(100, 7) }),
    assistant("msg_sub", [{ type: "text", text: "a" }], { parent_tool_use_id: "toolu_task", agent_id: "a-1" }),
    sdk({ type: "assistant", parent_tool_use_id: "toolu_task", agent_id: "a-1", message: { id: "msg_sub", role: "assistant", content: [{ type: "text", text: "a" }], usage: usage(30, 4) } }),
    sdk({ type: "assistant", parent_tool_use_id: "toolu_task", agent_id: "a-1", message: { id: "msg_sub", role: "assistant", content: [{ type: "text", text: "b" }], usage: usage(30, 4) } }),
    sdk({ type: "assistant", parent_tool_use_id: "toolu_task", agent_id: "a-1", message: { id: "msg_bad", role: "assistant", content: [], usage: { input_tokens: "many", output_tokens: -3 } } }),
  ]);
  const calls = events.filter((e) => e.type === "call.completed");
  assert.deepEqual(calls, [
    { type: "call.completed", callId: "msg_1", usage: { inputTokens: 100, outputTokens: 7, cacheReadTokens: 5, cacheWriteTokens: 0 } },
    { type: "call.completed", agentId: "a-1", parentToolUseId: "toolu_task", callId: "msg_sub", usage: { inputTokens: 30, outputTokens: 4, cacheReadTokens: 5, cacheWriteTokens: 0 } },
  ]);
  for (const event of calls) assert.ok(RunnerEventSchema.safeParse({ ...event, seq: 1 }).success);
});

test("a call is priced by its own model, though a sub-agent on another model spoke while it streamed", () => {
  const { events } = mapped([
    stream({ type: "message_start", message: { id: "msg_1", model: "claude-opus-4-5", usage: usage(1000, 1) } }),
    sdk({ type: "assistant", parent_tool_use_id: "toolu_task", agent_id: "a-1", message: { id: "msg_sub", model: "claude-haiku-4-5", role: "assistant", content: [{ type: "text", text: "a" }], usage: usage(1000, 1) } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } }),
    stream({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: usage(1000, 100) }),
  ]);
  const calls = events.flatMap((e) => (e.type === "call.completed" ? [e] : []));
  assert.equal(calls.length, 2);
  const [sub, main] = calls;
  assert.equal(sub.usage.costUsd, costUsd("claude-haiku-4-5", sub.usage));
  assert.equal(main.usage.costUsd, costUsd("claude-opus-4-5", main.usage));
});

/** A sub-agent's two calls as Claude Code sends them: no stream events, each line with the output
 * count the call began with (1). */
const subAgentCalls = () => [
  sdk({ type: "system", subtype: "task_started", task_id: "a-1", tool_use_id: "toolu_task", description: "sub", task_type: "local_agent" }),
  assistant("msg_s1", [{ type: "tool_use", id: "toolu_sub", name: "Bash", input: { command: "ls" } }], { parent_tool_use_id: "toolu_task", message: { id: "msg_s1", model: "claude-haiku-4-5", role: "assistant", content: [{ type: "tool_use", id: "toolu_sub", name: "Bash", input: { command: "ls" } }], usage: usage(200, 1) } }),
  sdk({ type: "system", subtype: "task_progress", task_id: "a-1", tool_use_id: "toolu_task", description: "Running ls", usage: { total_tokens: 206, tool_uses: 1, duration_ms: 60 } }),
  sdk({ type: "user", parent_tool_use_id: "toolu_task", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_sub", content: "a.txt" }] } }),
  assistant("msg_s2", [{ type: "text", text: "sub done" }], { parent_tool_use_id: "toolu_task", message: { id: "msg_s2", model: "claude-haiku-4-5", role: "assistant", content: [{ type: "text", text: "sub done" }], usage: usage(300, 1) } }),
];

test("a sub-agent's last call is reported again under its id with the real output count its task's notification gives; the others keep the count they began with", () => {
  const { events, run } = mapped([
    ...subAgentCalls(),
    sdk({ type: "system", subtype: "task_notification", task_id: "a-1", tool_use_id: "toolu_task", status: "completed", output_file: "/o", summary: "sub done", usage: { total_tokens: 338, tool_uses: 1, duration_ms: 170 } }),
    sdk({ type: "system", subtype: "task_notification", task_id: "a-1", tool_use_id: "toolu_task", status: "completed", output_file: "/o", summary: "sub done", usage: { total_tokens: 338, tool_uses: 1, duration_ms: 170 } }),
  ]);
  const calls = events.flatMap((e) => (e.type === "call.completed" ? [[e.callId, e.usage.inputTokens, e.usage.outputTokens]] : []));
  assert.deepEqual(calls, [["msg_s1", 200, 1], ["msg_s2", 300, 1], ["msg_s2", 300, 33]], "the task's 338 tokens: 300 input, 5 cache reads, 33 output");
  const last = events.filter((e) => e.type === "call.completed").at(-1)!;
  assert.equal(last.type === "call.completed" && last.usage.costUsd, costUsd("claude-haiku-4-5", { inputTokens: 300, outputTokens: 33, cacheReadTokens: 5, cacheWriteTokens: 0 }), "priced by the call's model");
  assert.equal(last.type === "call.completed" && last.parentToolUseId, "toolu_task");
  assert.equal(run.calls.get("msg_s2")?.outputTokens, 33);
});

test("a foreground sub-agent's last call gets its real output count from the Agent call's result; a result whose usage is not that call's changes nothing", () => {
  const agentResult = (input: number) =>
    sdk({
      type: "user",
      message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_task", content: [{ type: "text", text: "sub done" }] }] },
      tool_use_result: { status: "completed", agentId: "a-1", totalTokens: 338, usage: { input_tokens: input, output_tokens: 33, cache_read_input_tokens: 5, cache_creation_input_tokens: 0 } },
    });
  const count = (messages: SDKMessage[]) => mapped(messages).events.flatMap((e) => (e.type === "call.completed" && e.callId === "msg_s2" ? [e.usage.outputTokens] : []));
  assert.deepEqual(count([...subAgentCalls(), agentResult(300)]), [1, 33]);
  assert.deepEqual(count([...subAgentCalls(), agentResult(999)]), [1]);
});

test("a call is priced as Claude Code prices its model: at the rate its last result showed, the price list's before any", () => {
  const call = (id: string) => [
    stream({ type: "message_start", message: { id, model: "claude-opus-4-5", usage: usage(1000, 1) } }),
    stream({ type: "message_delta", delta: { stop_reason: "end_turn" }, usage: usage(1000, 100) }),
  ];
  const result = sdk({
    type: "result",
    subtype: "success",
    result: "ok",
    is_error: false,
    total_cost_usd: 0.8 * costUsd("claude-opus-4-5", { inputTokens: 1000, outputTokens: 100 }),
    modelUsage: { "claude-opus-4-5": { inputTokens: 1000, outputTokens: 100, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, webSearchRequests: 0, costUSD: 0.8 * costUsd("claude-opus-4-5", { inputTokens: 1000, outputTokens: 100 }) } },
  });
  const { events, run } = mapped([...call("msg_1"), result, ...call("msg_2")]);
  const costs = events.flatMap((e) => (e.type === "call.completed" ? [e.usage.costUsd!] : []));
  const list = costUsd("claude-opus-4-5", { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 5, cacheWriteTokens: 0 });
  assert.equal(costs[0], list);
  assert.ok(Math.abs(costs[1] - 0.8 * list) < 1e-12, `${costs[1]} vs ${0.8 * list}`);
  assert.ok(Math.abs(run.rates["claude-opus-4-5"] - 0.8) < 1e-12);

  const known = createEventMapper(() => {}, { "claude-opus-4-5": 0.5 });
  for (const m of call("msg_3")) known.handle(m);
  assert.ok(Math.abs(known.run.calls.get("msg_3")!.costUsd! - 0.5 * list) < 1e-12, "the rate kept from an earlier run");
});

test("streamed thinking becomes thinking events, not sent again whole; a sub-agent's unstreamed thinking comes whole with its id; redacted thinking shows nothing", () => {
  const { events } = mapped([
    stream({ type: "message_start", message: { id: "msg_1", usage: usage(100, 1) } }),
    stream({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Plan " } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "it." } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } }),
    assistant("msg_1", [{ type: "thinking", thinking: "Plan it.", signature: "sig" }]),
    assistant("msg_1", [{ type: "redacted_thinking", data: "opaque" }]),
    assistant("msg_sub", [{ type: "thinking", thinking: "Sub plan.", signature: "s" }], { parent_tool_use_id: "toolu_task" }),
  ]);
  const thinking = events.filter((e) => e.type === "assistant.thinking");
  assert.deepEqual(thinking, [
    { type: "assistant.thinking", text: "Plan " },
    { type: "assistant.thinking", text: "it." },
    { type: "assistant.thinking", agentId: "toolu_task", parentToolUseId: "toolu_task", text: "Sub plan." },
  ]);
  for (const event of thinking) assert.ok(RunnerEventSchema.safeParse({ ...event, seq: 1 }).success);
  assert.equal(events.filter((e) => e.type === "assistant.delta").length, 0, "thinking is never reply text");
});

test("a stream Claude Code abandons withdraws the thinking it sent too, as thinking", () => {
  const { events } = mapped([
    stream({ type: "message_start", message: { id: "msg_1", usage: usage(100, 1) } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Half a " } }),
    stream({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "thought" } }),
    stream({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "The" } }),
    sdk({ type: "stream_event", event: { type: "message_stop" }, abandoned_blocks: { api_message_id: "msg_1", from_block_index: 0 } }),
  ]);
  assert.deepEqual(events.filter((e) => e.type === "assistant.retracted"), [
    { type: "assistant.retracted", text: "Half a thought", thinking: true },
    { type: "assistant.retracted", text: "The" },
  ]);
});
