// What a run's events become: the counters and events one run reports, read from a recording
// exporter, with the clock in the test's hands.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent, RunnerQuery } from "@harness/protocol";
import { telemetryConfig } from "./config.ts";
import type { Exporter } from "./exporter.ts";
import { observeRun } from "./observe-run.ts";
import type { Attributes } from "./otlp-model.ts";

function recording(env: Record<string, string> = {}) {
  const added: { name: string; value: number; attributes: Attributes }[] = [];
  const events: { name: string; attributes: Attributes }[] = [];
  const exporter: Exporter = {
    add: (name, _info, value, attributes) => void (value > 0 && added.push({ name, value, attributes })),
    event: (name, attributes) => void events.push({ name, attributes }),
    span: () => {},
    tracing: false,
    flush: async () => {},
    stop: () => {},
  };
  const config = telemetryConfig({ CLAUDE_CODE_ENABLE_TELEMETRY: "1", OTEL_METRICS_EXPORTER: "otlp", OTEL_LOGS_EXPORTER: "otlp", ...env })!;
  let clock = 1_000;
  const deps = { exporter, config, appVersion: "9.9.9", now: () => clock };
  return { added, events, deps, tick: (ms: number) => (clock += ms) };
}

const query: RunnerQuery = { prompt: "fix it" };
const ready = (model: string): AgentEvent => ({ type: "run.ready", available: { model, slashCommands: [], tools: [], mcpServers: [], agents: [], skills: [], outputStyle: "default" } });

test("a call's tokens and cost are counted under the model the run works with, its API request timed from the run's start", () => {
  const r = recording();
  const run = observeRun(query, { sessionId: "s1", userId: "alice" }, r.deps);
  run.event(ready("claude-opus-4-1"));
  r.tick(250);
  run.event({ type: "call.completed", usage: { inputTokens: 10, outputTokens: 3, cacheWriteTokens: 7, costUsd: 0.5 } });
  run.end({ ok: true, result: "", usage: { inputTokens: 10, outputTokens: 3 }, transcript: [] });
  assert.deepEqual(
    r.added.map((a) => [a.name, a.value, a.attributes.type ?? null, a.attributes.model ?? null]),
    [
      ["harness.session.count", 1, null, null],
      ["harness.token.usage", 10, "input", "claude-opus-4-1"],
      ["harness.token.usage", 3, "output", "claude-opus-4-1"],
      ["harness.token.usage", 7, "cacheCreation", "claude-opus-4-1"],
      ["harness.cost.usage", 0.5, null, "claude-opus-4-1"],
      ["harness.active_time.total", 0.25, "cli", null],
    ],
  );
  assert.deepEqual(r.added[1].attributes, { "session.id": "s1", "user.id": "alice", type: "input", model: "claude-opus-4-1" });
  const request = r.events.find((e) => e.name === "api_request")!;
  assert.deepEqual(request.attributes, {
    "session.id": "s1",
    "user.id": "alice",
    "app.version": "9.9.9",
    model: "claude-opus-4-1",
    cost_usd: { double: 0.5 },
    duration_ms: 250,
    input_tokens: 10,
    output_tokens: 3,
    cache_read_tokens: 0,
    cache_creation_tokens: 7,
  });
});

test("a run that goes on with a conversation is no new session", () => {
  const r = recording();
  observeRun({ prompt: "more", history: [{ role: "user", content: "hi" }] }, {}, r.deps);
  observeRun({ prompt: "more", resumeSessionId: "abc" }, {}, r.deps);
  assert.deepEqual(r.added, []);
});

test("tool calls: their result, the user's decision, the settings' acceptance and refusal, and the lines an Edit and a Write changed", () => {
  const r = recording();
  const run = observeRun(query, {}, r.deps);
  run.event({ type: "tool.started", toolName: "Edit", toolUseId: "t1", input: { file_path: "/a", old_string: "one\ntwo", new_string: "one\ntwo\nthree\n" } });
  run.event({ type: "approval.requested", toolUseId: "t1", toolName: "Edit", description: "edit /a" });
  run.event({ type: "approval.resolved", toolUseId: "t1", behavior: "allow" });
  r.tick(40);
  run.event({ type: "tool.completed", toolUseId: "t1", output: "ok", isError: false });
  run.event({ type: "tool.started", toolName: "Write", toolUseId: "t2", input: { file_path: "/b", content: "x\ny" } });
  run.event({ type: "tool.completed", toolUseId: "t2", output: "ok", isError: false });
  run.event({ type: "tool.started", toolName: "Bash", toolUseId: "t3", input: { command: "rm -rf /" } });
  run.event({ type: "tool.completed", toolUseId: "t3", output: "Permission to use Bash has been denied.", isError: true, denied: true });
  const lines = r.added.filter((a) => a.name === "harness.lines_of_code.count").map((a) => [a.attributes.type, a.value]);
  assert.deepEqual(lines, [["added", 3], ["removed", 2], ["added", 2]]);
  const events = r.events.filter((e) => e.name !== "user_prompt").map((e) => [e.name, e.attributes.tool_name, e.attributes.decision ?? e.attributes.success, e.attributes.decision_source ?? e.attributes.source ?? null]);
  assert.deepEqual(events, [
    ["tool_decision", "Edit", "accept", "user"],
    ["tool_result", "Edit", true, "user"],
    ["tool_decision", "Write", "accept", "config"],
    ["tool_result", "Write", true, "config"],
    ["tool_decision", "Bash", "reject", "config"],
    ["tool_result", "Bash", false, "config"],
  ]);
  const edit = r.events.find((e) => e.name === "tool_result")!;
  assert.equal(edit.attributes.duration_ms, 40);
  assert.equal(r.events.at(-1)!.attributes.error, "Permission to use Bash has been denied.");
});

test("a model request tried again is an api_error with its status and attempt, read from the notice's retry and not its words", () => {
  const r = recording();
  const run = observeRun({ ...query, model: "claude-haiku-4-5" }, {}, r.deps);
  const message = "The model request failed (529 overloaded_error: Overloaded); trying again in 1s (attempt 2).";
  run.event({ type: "notice", level: "warning", message, retry: { attempt: 1, status: 529, error: "529 overloaded_error: Overloaded", delayMs: 1000 } });
  run.event({ type: "notice", level: "warning", message: "Reworded: 529 again, attempt 3." , retry: { attempt: 2, maxAttempts: 3, error: "the model stream stalled" } });
  run.event({ type: "notice", level: "warning", message });
  const errors = r.events.filter((e) => e.name === "api_error");
  assert.deepEqual(
    errors.map((e) => ({ ...e.attributes, duration_ms: 0 })),
    [
      { "app.version": "9.9.9", model: "claude-haiku-4-5", error: "529 overloaded_error: Overloaded", status_code: "529", duration_ms: 0, attempt: 1 },
      { "app.version": "9.9.9", model: "claude-haiku-4-5", error: "the model stream stalled", duration_ms: 0, attempt: 2 },
    ],
  );
});

test("a run that ends on a model request's failure is an api_error with its status; a run failing otherwise is none", () => {
  const r = recording();
  const run = observeRun({ ...query, model: "claude-haiku-4-5" }, {}, r.deps);
  run.event({ type: "notice", level: "warning", message: "tried again", retry: { attempt: 1, status: 529, error: "overloaded" } });
  run.end({ ok: false, message: "The Anthropic API said: overloaded — gave up after 2 attempts", modelFailure: { status: 529, error: "overloaded — gave up after 2 attempts", attempt: 2 } });
  const errors = r.events.filter((e) => e.name === "api_error").map((e) => [e.attributes.status_code, e.attributes.attempt, e.attributes.error]);
  assert.deepEqual(errors, [["529", 1, "overloaded"], ["529", 2, "overloaded — gave up after 2 attempts"]]);
  const other = recording();
  observeRun(query, {}, other.deps).end({ ok: false, message: "the run reached its maximum number of turns", reason: "max_turns" });
  assert.equal(other.events.filter((e) => e.name === "api_error").length, 0);
});

test("the prompt's text only with OTEL_LOG_USER_PROMPTS=1; session.id and app.version on metrics as OTEL_METRICS_INCLUDE_* say", () => {
  const quiet = recording();
  observeRun(query, { sessionId: "s1" }, quiet.deps);
  assert.deepEqual(quiet.events[0].attributes, { "session.id": "s1", "app.version": "9.9.9", prompt_length: 6 });
  const loud = recording({ OTEL_LOG_USER_PROMPTS: "1", OTEL_METRICS_INCLUDE_SESSION_ID: "false", OTEL_METRICS_INCLUDE_VERSION: "true" });
  observeRun(query, { sessionId: "s1" }, loud.deps);
  assert.equal(loud.events[0].attributes.prompt, "fix it");
  assert.deepEqual(loud.added[0].attributes, { "app.version": "9.9.9" });
});

test("a call reported again under its id (its real counts, learnt late) adds only what changed, and is one api_request", () => {
  const r = recording();
  const run = observeRun(query, {}, r.deps);
  run.event(ready("claude-opus-4-1"));
  run.event({ type: "call.completed", callId: "msg_1", agentId: "a1", usage: { inputTokens: 10, outputTokens: 1, costUsd: 0.1 } });
  run.event({ type: "call.completed", callId: "msg_1", agentId: "a1", usage: { inputTokens: 10, outputTokens: 40, costUsd: 0.4 } });
  const sum = (name: string, type?: string) => r.added.filter((a) => a.name === name && (type === undefined || a.attributes.type === type)).reduce((total, a) => total + a.value, 0);
  assert.equal(sum("harness.token.usage", "input"), 10);
  assert.equal(sum("harness.token.usage", "output"), 40);
  assert.ok(Math.abs(sum("harness.cost.usage") - 0.4) < 1e-9);
  assert.equal(r.events.filter((e) => e.name === "api_request").length, 1);
});

test("a call.completed with nothing used (an attempt that failed before any answer) is no api_request", () => {
  const r = recording();
  const run = observeRun(query, {}, r.deps);
  run.event({ type: "call.completed", usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0 } });
  assert.deepEqual(r.events.map((e) => e.name), ["user_prompt"]);
});
