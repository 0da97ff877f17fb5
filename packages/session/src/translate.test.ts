import { test } from "node:test";
import assert from "node:assert/strict";
import { applyOperations, type HarnessState, type RunnerEvent, type RunnerEventPayload } from "@harness/protocol";
import { MAX_NOTICES, translateEvent, type RunCursor } from "./translate.ts";
import { spentOp } from "./usage-count.ts";

function running(extra: Partial<HarnessState> = {}): HarnessState {
  return {
    status: "running",
    messages: [
      { id: "u0", role: "user", content: "earlier", status: "complete" },
      { id: "a0", role: "assistant", content: "done", status: "complete" },
      { id: "u1", role: "user", content: "hi", status: "complete" },
      { id: "a1", role: "assistant", content: "", status: "running" },
    ],
    ...extra,
  };
}

/** Feeds events through the translator and applies its operations, as a session does. */
function play(state: HarnessState, ...events: RunnerEventPayload[]) {
  let cursor: RunCursor = { assistantMessageId: "a1", afterTool: false };
  const batches = [];
  let seq = 0;
  for (const payload of events) {
    const t = translateEvent(state, cursor, { ...payload, seq: ++seq } as RunnerEvent);
    cursor = t.cursor;
    batches.push(t.operations);
    state = applyOperations(state, t.operations);
  }
  return { state, batches };
}

test("run.started marks the session running, and says nothing when it already is", () => {
  const idle = play(running({ status: "idle" }), { type: "run.started", requestId: "r" });
  assert.equal(idle.state.status, "running");
  const already = play(running(), { type: "run.started", requestId: "r" });
  assert.deepEqual(already.batches, [[]]);
});

test("text deltas are appended to the running assistant message only, one small operation each", () => {
  const { state, batches } = play(running(), { type: "assistant.delta", text: "Hel" }, { type: "assistant.delta", text: "lo" }, { type: "assistant.delta", text: "" });
  assert.equal(state.messages[3].content, "Hello");
  assert.equal(state.messages[1].content, "done");
  assert.deepEqual(batches[0], [{ type: "append-text", path: ["messages", "3", "content"], value: "Hel" }]);
  assert.deepEqual(batches[2], [], "an empty delta changes nothing");
});

test("a running call's streamed output grows its output in the state, then its result replaces it", () => {
  const { state, batches } = play(
    running(),
    { type: "tool.started", toolName: "Bash", toolUseId: "t1", input: { command: "make" } },
    { type: "tool.output", toolUseId: "t1", text: "1\n" },
    { type: "tool.output", toolUseId: "t1", text: "2\n" },
  );
  assert.deepEqual(state.messages[3].toolCalls![0], { id: "t1", name: "Bash", status: "running", input: { command: "make" }, output: "1\n2\n", textOffset: 0 });
  const path = ["messages", "3", "toolCalls", "0", "output"];
  assert.deepEqual(batches[1], [{ type: "set", path, value: "1\n" }], "the first output sets it");
  assert.deepEqual(batches[2], [{ type: "append-text", path, value: "2\n" }], "the next ones are appended");

  const cut = play(state, { type: "tool.output", toolUseId: "t1", text: "1\n... [9 characters of output omitted] ...\n9\n", replace: true });
  assert.deepEqual(cut.batches[0], [{ type: "set", path, value: "1\n... [9 characters of output omitted] ...\n9\n" }]);

  const done = play(cut.state, { type: "tool.completed", toolUseId: "t1", output: "1\n2\n9\n\nExit code 2", isError: true }, { type: "tool.output", toolUseId: "t1", text: "late" });
  assert.deepEqual(done.state.messages[3].toolCalls![0].output, "1\n2\n9\n\nExit code 2");
  assert.equal(done.state.messages[3].toolCalls![0].status, "error");
  assert.deepEqual(done.batches[1], [], "output of a call that has ended changes nothing");
  assert.deepEqual(play(running(), { type: "tool.output", toolUseId: "nope", text: "x" }).batches, [[]], "nor of a call the message does not hold");
});

test("a sub-agent's running call streams its output too; a run that ends under a running call keeps what it printed", () => {
  const { state } = play(
    running(),
    { type: "tool.started", toolName: "Task", toolUseId: "task" },
    { type: "tool.started", toolName: "Bash", toolUseId: "sub1", agentId: "agent_1", parentToolUseId: "task" },
    { type: "tool.output", toolUseId: "sub1", agentId: "agent_1", parentToolUseId: "task", text: "compiling\n" },
    { type: "run.completed" },
  );
  const sub = state.messages[3].toolCalls![1];
  assert.equal(sub.status, "error");
  assert.equal(sub.output, "compiling\n\nthe run ended before this tool call finished");
  assert.equal(state.messages[3].toolCalls![0].output, "the run ended before this tool call finished");
});

test("withdrawn text leaves the reply, with the paragraph break put before it; the text asked for again follows as before", () => {
  const { state } = play(
    running(),
    { type: "assistant.delta", text: "Let me look." },
    { type: "tool.started", toolName: "Bash", toolUseId: "t1" },
    { type: "tool.completed", toolUseId: "t1", output: "ok", isError: false },
    { type: "assistant.delta", text: "The answer is " },
    { type: "assistant.retracted", text: "The answer is " },
    { type: "assistant.delta", text: "The answer is 42." },
  );
  assert.equal(state.messages[3].content, "Let me look.\n\nThe answer is 42.");
  const partial = play(running(), { type: "assistant.delta", text: "Hello wor" }, { type: "assistant.retracted", text: "wor" }, { type: "assistant.delta", text: "world" });
  assert.equal(partial.state.messages[3].content, "Hello world");
  const unknown = play(running(), { type: "assistant.delta", text: "Hello" }, { type: "assistant.retracted", text: "other" }, { type: "assistant.retracted", agentId: "a", text: "lo" });
  assert.equal(unknown.state.messages[3].content, "Hello", "text the reply does not end with, or a sub-agent's, changes nothing");
});

test("tool calls are added to the message, completed with output and status", () => {
  const { state, batches } = play(
    running(),
    { type: "tool.started", toolName: "Bash", toolUseId: "t1", input: { command: "ls" } },
    { type: "tool.started", toolName: "Read", toolUseId: "t2" },
    { type: "tool.completed", toolUseId: "t1", output: "a\nb", isError: false },
    { type: "tool.completed", toolUseId: "t2", output: "no such file", isError: true },
  );
  assert.deepEqual(state.messages[3].toolCalls, [
    { id: "t1", name: "Bash", status: "complete", input: { command: "ls" }, output: "a\nb", textOffset: 0 },
    { id: "t2", name: "Read", status: "error", output: "no such file", textOffset: 0 },
  ]);
  assert.deepEqual(batches[0].map((op) => op.path), [["messages", "3", "toolCalls"]], "the first call creates the array");
  assert.deepEqual(batches[1].map((op) => op.path), [["messages", "3", "toolCalls", "1"]], "later calls are set by index");
});

test("a completion for an unknown tool call changes nothing", () => {
  const { batches } = play(running(), { type: "tool.completed", toolUseId: "nope", output: "x", isError: false });
  assert.deepEqual(batches, [[]]);
});

test("text after a tool call starts a new paragraph, once, unless it already starts on a new line", () => {
  const first = play(
    running(),
    { type: "assistant.delta", text: "Let me look." },
    { type: "tool.started", toolName: "Bash", toolUseId: "t1" },
    { type: "tool.completed", toolUseId: "t1", output: "", isError: false },
    { type: "assistant.delta", text: "Found" },
    { type: "assistant.delta", text: " it." },
  );
  assert.equal(first.state.messages[3].content, "Let me look.\n\nFound it.");
  assert.equal(first.state.messages[3].toolCalls![0].textOffset, "Let me look.".length, "the call sits where the text stood when it was made");

  const newline = play(
    running(),
    { type: "assistant.delta", text: "Look:\n" },
    { type: "tool.started", toolName: "Bash", toolUseId: "t1" },
    { type: "assistant.delta", text: "ok" },
  );
  assert.equal(newline.state.messages[3].content, "Look:\nok");

  const toolFirst = play(running(), { type: "tool.started", toolName: "Bash", toolUseId: "t1" }, { type: "assistant.delta", text: "ok" });
  assert.equal(toolFirst.state.messages[3].content, "ok", "no leading blank line when the message starts with a tool call");
});

test("run.completed completes the message, idles the session and sums usage over runs", () => {
  const { state } = play(
    running({ usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.5 } }),
    { type: "assistant.delta", text: "hi" },
    { type: "run.completed", usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 7 }, sessionId: "cc-1" },
  );
  assert.equal(state.messages[3].status, "complete");
  assert.equal(state.status, "idle");
  assert.deepEqual(state.usage, { inputTokens: 13, outputTokens: 7, cacheReadTokens: 7, costUsd: 0.5 });
  assert.equal(state.sessionId, "cc-1");
});

test("run.completed keeps the usage of the run's last model call: how full the context was then", () => {
  const last = { inputTokens: 40, outputTokens: 9, cacheReadTokens: 1200, cacheWriteTokens: 300 };
  const { state } = play(
    running({ lastCall: { inputTokens: 1, outputTokens: 1 } }),
    { type: "run.completed", usage: { inputTokens: 50, outputTokens: 12 }, turns: [{ inputTokens: 10, outputTokens: 3 }, last] },
  );
  assert.deepEqual(state.lastCall, last);
  const none = play(running({ lastCall: last }), { type: "run.completed", usage: { inputTokens: 5, outputTokens: 1 } });
  assert.deepEqual(none.state.lastCall, last, "a run that does not report its calls leaves the last one known");
  const bad = play(running({ lastCall: last }), { type: "run.completed", turns: [{ inputTokens: -1, outputTokens: Number.NaN }] });
  assert.deepEqual(bad.state.lastCall, last, "a call's usage that is not made of counts is left out");
});

test("run.error counts what the run's model calls cost before it failed", () => {
  const { state } = play(
    running({ usage: { inputTokens: 10, outputTokens: 5, costUsd: 0.5 } }),
    { type: "run.error", message: "overloaded — gave up after 5 attempts", usage: { inputTokens: 20_000, outputTokens: 500, costUsd: 0.0675 } },
  );
  assert.equal(state.status, "error");
  assert.deepEqual(state.usage, { inputTokens: 20_010, outputTokens: 505, costUsd: 0.5675 });
});

test("a run end's totals of the conversation are kept unless the session holds later ones", () => {
  const usage = { inputTokens: 10, outputTokens: 5 };
  const held = { usage, calls: 3, apiMs: 900, wallMs: 5000 };
  const state = running({ spent: held });
  const later = { usage: { inputTokens: 12, outputTokens: 6 }, calls: 4, apiMs: 1000, wallMs: 6000 };
  assert.deepEqual(spentOp(state, later), { type: "set", path: ["spent"], value: later });
  // A cancelled run's end that comes after the next run ended: its totals are older.
  assert.equal(spentOp(state, { usage, calls: 2, apiMs: 800, wallMs: 4000 }), undefined);
  assert.equal(spentOp(state, { usage, calls: 3, apiMs: 900, wallMs: 4999 }), undefined);
  assert.ok(spentOp(running(), held), "a session with no totals takes any");
});

test("run.completed shows the result when no text was streamed and settles unfinished tool calls", () => {
  const { state } = play(
    running(),
    { type: "tool.started", toolName: "Bash", toolUseId: "t1" },
    { type: "run.completed", result: "All done." },
  );
  assert.equal(state.messages[3].content, "All done.");
  assert.equal(state.messages[3].toolCalls?.[0].status, "error");
});

test("run.error marks the message and the session as errored with the message", () => {
  const { state } = play(
    running(),
    { type: "assistant.delta", text: "part" },
    { type: "tool.started", toolName: "Bash", toolUseId: "t1" },
    { type: "run.error", message: "model overloaded" },
  );
  assert.equal(state.messages[3].status, "error");
  assert.equal(state.messages[3].content, "part");
  assert.equal(state.messages[3].toolCalls?.[0].status, "error");
  assert.equal(state.status, "error");
  assert.equal(state.error, "model overloaded");
});

test("events for a message that is gone change nothing", () => {
  const state = running();
  const t = translateEvent(state, { assistantMessageId: "missing", afterTool: false }, { type: "assistant.delta", text: "x", seq: 1 });
  assert.deepEqual(t.operations, []);
});

test("notices are kept in order, the most recent MAX_NOTICES of them", () => {
  const events = Array.from({ length: MAX_NOTICES + 2 }, (_, i) => ({ type: "notice" as const, level: "warning" as const, message: `n${i}` }));
  const { state, batches } = play(running(), ...events);
  assert.equal(state.notices?.length, MAX_NOTICES);
  assert.equal(state.notices?.[0].message, "n2");
  assert.equal(state.notices?.at(-1)?.message, `n${MAX_NOTICES + 1}`);
  assert.deepEqual(batches[1], [{ type: "set", path: ["notices", "1"], value: { level: "warning", message: "n1" } }]);
});

test("approval requests and answers move a call and the session between running and awaiting-approval", () => {
  const { state } = play(
    running(),
    { type: "tool.started", toolName: "Bash", toolUseId: "t1" },
    { type: "approval.requested", toolUseId: "t1", toolName: "Bash", description: "rm x" },
  );
  assert.equal(state.status, "awaiting-approval");
  assert.equal(state.messages[3].toolCalls?.[0].status, "awaiting-approval");
  const denied = play(state, { type: "approval.resolved", toolUseId: "t1", behavior: "deny" }, { type: "tool.completed", toolUseId: "t1", output: "denied: no", isError: true });
  assert.equal(denied.state.status, "running");
  assert.deepEqual(denied.state.pendingApprovals, []);
  assert.deepEqual(denied.state.messages[3].toolCalls?.[0], { id: "t1", name: "Bash", status: "denied", output: "denied: no", textOffset: 0 });
});

test("a call whose approval is asked for before it is announced stays one call, waiting for approval", () => {
  const { state, batches } = play(
    running(),
    { type: "approval.requested", toolUseId: "t1", toolName: "Write", description: "b.txt", input: { file_path: "b.txt" } },
    { type: "tool.started", toolName: "Write", toolUseId: "t1", input: { file_path: "b.txt", content: "b" } },
  );
  assert.deepEqual(batches[1], []);
  assert.deepEqual(state.messages[3].toolCalls, [{ id: "t1", name: "Write", status: "awaiting-approval", textOffset: 0, input: { file_path: "b.txt" } }]);
  const bare = play(running(), { type: "approval.requested", toolUseId: "t2", toolName: "Bash", description: "ls" }, { type: "tool.started", toolName: "Bash", toolUseId: "t2", input: { command: "ls" } });
  assert.deepEqual(bare.state.messages[3].toolCalls, [{ id: "t2", name: "Bash", status: "awaiting-approval", textOffset: 0, input: { command: "ls" } }]);
  assert.equal(bare.state.status, "awaiting-approval");
});

test("mode.changed writes the run's new mode into the session's configuration, in the wire's words", () => {
  const fresh = play(running(), { type: "mode.changed", permissionMode: "default" });
  assert.deepEqual(fresh.state.config, { permissionMode: "default" });
  const kept = play(running({ config: { model: "m", permissionMode: "acceptEdits" } }), { type: "mode.changed", permissionMode: "bypassPermissions" });
  assert.deepEqual(kept.state.config, { model: "m", permissionMode: "fullAuto" });
  // Plan mode has no name in the configuration; a sub-agent's mode is its own; the same mode again
  // is no change.
  const unnamed = play(running(), { type: "mode.changed", permissionMode: "plan" });
  const subagent = play(running(), { type: "mode.changed", permissionMode: "default", agentId: "agent_1" });
  const same = play(running({ config: { permissionMode: "default" } }), { type: "mode.changed", permissionMode: "default" });
  assert.deepEqual([unnamed.batches, subagent.batches, same.batches], [[[]], [[]], [[]]]);
});

test("run.ready puts what the run has available in the state, once: a run that starts with the same says nothing; a sub-agent's is its own", () => {
  const available = { model: "claude-sonnet-4-5", slashCommands: ["help", "deploy", "mcp__docs__summarize"], tools: ["Bash", "Read"], mcpServers: [{ name: "docs", status: "connected" }], agents: ["general-purpose"], skills: ["lint"], outputStyle: "default" };
  const first = play(running(), { type: "run.ready", available });
  assert.deepEqual(first.state.available, available);
  const same = play(first.state, { type: "run.ready", available: structuredClone(available) });
  assert.deepEqual(same.batches, [[]]);
  const changed = play(first.state, { type: "run.ready", available: { ...available, mcpServers: [{ name: "docs", status: "failed" }] } });
  assert.deepEqual(changed.state.available?.mcpServers, [{ name: "docs", status: "failed" }]);
  const subagent = play(running(), { type: "run.ready", available, agentId: "agent_1" });
  assert.deepEqual(subagent.batches, [[]]);
});

test("a run that starts with a part of what it has changed (an MCP server's status) sends that part alone, not its thousands of tools again", () => {
  const tools = Array.from({ length: 3000 }, (_, i) => `mcp__big__tool_${i}`);
  const available = { model: "claude-sonnet-4-5", slashCommands: ["help"], tools, mcpServers: [{ name: "big", status: "connected" }], agents: [], skills: [], outputStyle: "default" };
  const first = play(running(), { type: "run.ready", available });
  const changed = play(first.state, { type: "run.ready", available: { ...available, mcpServers: [{ name: "big", status: "failed" }] } });
  assert.deepEqual(changed.batches, [[{ type: "set", path: ["available", "mcpServers"], value: [{ name: "big", status: "failed" }] }]]);
  assert.deepEqual(changed.state.available, { ...available, mcpServers: [{ name: "big", status: "failed" }] });
});

test("thinking grows the message's thinking, apart from its reply; a later model call's thinking is a new paragraph", () => {
  const { state, batches } = play(
    running(),
    { type: "assistant.thinking", text: "Let me " },
    { type: "assistant.thinking", text: "look." },
    { type: "tool.started", toolName: "Read", toolUseId: "t1" },
    { type: "assistant.thinking", text: "Found it." },
    { type: "assistant.thinking", text: " Done." },
    { type: "assistant.delta", text: "Here." },
    { type: "assistant.thinking", text: "sub", agentId: "agent_1", parentToolUseId: "t1" },
  );
  assert.equal(state.messages[3].thinking, "Let me look.\n\nFound it. Done.");
  assert.equal(state.messages[3].content, "Here.");
  assert.deepEqual(batches[1], [{ type: "append-text", path: ["messages", "3", "thinking"], value: "look." }], "one small operation per delta, as text");
  assert.deepEqual(batches[6], [], "a sub-agent's thinking stays with it");
  assert.equal(state.messages[1].thinking, undefined);
});

test("thinking withdrawn (the model was asked again) leaves the thinking before it, and the reply text alone", () => {
  const { state } = play(
    running(),
    { type: "assistant.thinking", text: "Plan." },
    { type: "tool.started", toolName: "Read", toolUseId: "t1" },
    { type: "assistant.thinking", text: "Half a" },
    { type: "assistant.retracted", text: "Half a", thinking: true },
    { type: "assistant.thinking", text: "Whole thought." },
    { type: "assistant.delta", text: "Half a" },
    { type: "assistant.retracted", text: "nothing like it", thinking: true },
  );
  assert.equal(state.messages[3].thinking, "Plan.\n\nWhole thought.");
  assert.equal(state.messages[3].content, "Half a", "reply text is not touched by a thinking retraction");
});
