// One run's spans from its events, on a clock the test moves: a sub-agent's beneath its Task call,
// failed attempts, a call the run's end cut short, a user's decision, content only when the
// settings say, cut at its limit; and TRACEPARENT read as W3C Trace Context reads it.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AgentEvent, RunnerQuery } from "@harness/protocol";
import { telemetryConfig } from "./config.ts";
import type { Exporter } from "./exporter.ts";
import type { Span } from "./otlp-model.ts";
import { MAX_SPAN_TEXT, parseTraceParent, traceRun, type TraceParent } from "./trace-run.ts";

function recording(env: Record<string, string> = {}, parent?: TraceParent) {
  const spans: Span[] = [];
  const exporter: Exporter = { add: () => {}, event: () => {}, span: (s) => void spans.push(s), tracing: true, flush: async () => {}, stop: () => {} };
  const config = telemetryConfig({ CLAUDE_CODE_ENABLE_TELEMETRY: "1", CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1", OTEL_TRACES_EXPORTER: "otlp", ...env })!;
  let clock = 1_000;
  const deps = { exporter, config, appVersion: "9.9.9", now: () => clock, ...(parent && { parent }) };
  const byName = (name: string) => spans.filter((s) => s.name === name);
  return { spans, byName, deps, tick: (ms: number) => (clock += ms) };
}

const query: RunnerQuery = { prompt: "fix it", model: "claude-opus-4-1" };
const usage = { inputTokens: 10, outputTokens: 3, costUsd: 0.5 };
const ok = { ok: true as const, result: "", usage, transcript: [] };

test("a sub-agent's model calls and tools go beneath the Task call that started it, and the Task call beneath the interaction", () => {
  const r = recording();
  const run = traceRun(query, { sessionId: "s1" }, r.deps);
  const events: AgentEvent[] = [
    { type: "tool.started", toolName: "Task", toolUseId: "task1", input: { prompt: "look" } },
    { type: "call.completed", agentId: "a1", parentToolUseId: "task1", usage, callId: "c-sub" },
    { type: "tool.started", agentId: "a1", parentToolUseId: "task1", toolName: "Read", toolUseId: "read1" },
    { type: "tool.completed", agentId: "a1", parentToolUseId: "task1", toolUseId: "read1", output: "text", isError: false },
    { type: "tool.completed", toolUseId: "task1", output: "found", isError: false },
    { type: "call.completed", usage, callId: "c-main" },
    { type: "call.completed", usage: { ...usage, outputTokens: 9 }, callId: "c-main" },
  ];
  for (const e of events) {
    r.tick(10);
    run.event(e);
  }
  run.end(ok);
  const [root] = r.byName("harness.interaction");
  const [task, read] = [r.byName("harness.tool").find((s) => s.attributes.tool_name === "Task")!, r.byName("harness.tool").find((s) => s.attributes.tool_name === "Read")!];
  const [sub, main] = r.byName("harness.llm_request");
  assert.equal(root.parentSpanId, undefined);
  assert.equal(task.parentSpanId, root.spanId);
  assert.equal(sub.parentSpanId, task.spanId);
  assert.equal(read.parentSpanId, task.spanId);
  assert.equal(main.parentSpanId, root.spanId);
  assert.equal(r.byName("harness.llm_request").length, 2, "a call reported again has one span");
  assert.equal(task.attributes["gen_ai.tool.call.id"], "task1");
  assert.equal(task.end - task.start, 40_000_000n, "from tool.started to tool.completed, in nanoseconds");
  assert.equal(task.attributes.duration_ms, 40);
  assert.equal(root.attributes["session.id"], "s1");
  assert.equal(root.attributes["gen_ai.conversation.id"], "s1");
  assert.equal(main.attributes["gen_ai.request.model"], "claude-opus-4-1");
  assert.equal(main.attributes.duration_ms, 10, "a call is timed from the end of the tool call before it");
  assert.ok(r.spans.every((s) => s.traceId === root.traceId));
});

test("a failed attempt is a model request with success false and an ERROR status; the run's failure ends the interaction in ERROR, and a tool call still open ends with it", () => {
  const r = recording();
  const run = traceRun(query, {}, r.deps);
  r.tick(100);
  run.event({ type: "notice", level: "warning", message: "retrying", retry: { attempt: 1, status: 529, error: "overloaded" } });
  r.tick(50);
  run.event({ type: "call.completed", usage });
  run.event({ type: "tool.started", toolName: "Bash", toolUseId: "b1", input: { command: "sleep 9" } });
  r.tick(30);
  run.end({ ok: false, message: "the model failed", modelFailure: { status: 500, error: "server error", attempt: 3 } });
  const [failed, succeeded, last] = r.byName("harness.llm_request");
  assert.deepEqual([failed.attributes.success, failed.attributes.status_code, failed.attributes.attempt, failed.attributes.error, failed.attributes.duration_ms], [false, 529, 1, "overloaded", 100]);
  assert.deepEqual(failed.status, { code: 2, message: "overloaded" });
  assert.equal(succeeded.attributes.success, true);
  assert.deepEqual([last.attributes.status_code, last.attributes.attempt, last.status.code], [500, 3, 2]);
  const [bash] = r.byName("harness.tool");
  assert.deepEqual([bash.attributes.success, bash.status.message], [false, "the run ended before the call did"]);
  const [root] = r.byName("harness.interaction");
  assert.deepEqual(root.status, { code: 2, message: "the model failed" });
  assert.equal(root.attributes.duration_ms, 180);
});

test("a user's decision is on its tool's span; a refused call is rejected by the config; content only with the settings, cut at its limit", () => {
  const r = recording({ OTEL_LOG_USER_PROMPTS: "1", OTEL_LOG_TOOL_DETAILS: "1" });
  const long = "x".repeat(MAX_SPAN_TEXT + 10);
  const run = traceRun({ prompt: long }, {}, r.deps);
  run.event({ type: "tool.started", toolName: "Bash", toolUseId: "b1", input: { command: "ls" } });
  run.event({ type: "approval.resolved", toolUseId: "b1", behavior: "allow" });
  run.event({ type: "tool.completed", toolUseId: "b1", output: long, isError: false });
  run.event({ type: "tool.started", toolName: "Write", toolUseId: "w1", input: { file_path: "/etc/x" } });
  run.event({ type: "tool.completed", toolUseId: "w1", output: "denied by a rule", isError: true, denied: true });
  run.end(ok);
  const [bash, write] = r.byName("harness.tool");
  assert.deepEqual([bash.attributes.decision_type, bash.attributes.decision_source], ["accept", "user"]);
  assert.equal(bash.attributes.tool_input, '{"command":"ls"}');
  assert.equal(bash.attributes.tool_output, `${"x".repeat(MAX_SPAN_TEXT)}…`);
  assert.deepEqual([write.attributes.decision_type, write.attributes.decision_source, write.attributes.success, write.status.code], ["reject", "config", false, 2]);
  assert.equal(r.byName("harness.interaction")[0].attributes.user_prompt, `${"x".repeat(MAX_SPAN_TEXT)}…`);

  const quiet = recording();
  const other = traceRun({ prompt: "secret plan" }, {}, quiet.deps);
  other.event({ type: "tool.started", toolName: "Bash", toolUseId: "b1", input: { command: "cat .env" } });
  other.event({ type: "tool.completed", toolUseId: "b1", output: "KEY=1", isError: false });
  other.end(ok);
  assert.ok(!JSON.stringify(quiet.spans, (_k, v) => (typeof v === "bigint" ? String(v) : v)).match(/secret plan|cat \.env|KEY=1/), "no prompt, input or output by default");
});

test("a TRACEPARENT makes the interaction the child of its span, in its trace", () => {
  const parent = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" };
  const r = recording({}, parent);
  traceRun(query, {}, r.deps).end(ok);
  const [root] = r.spans;
  assert.equal(root.traceId, parent.traceId);
  assert.equal(root.parentSpanId, parent.spanId);
});

test("TRACEPARENT is read as W3C Trace Context reads it, anything else named", () => {
  assert.deepEqual(parseTraceParent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"), { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" });
  assert.deepEqual(parseTraceParent(" 00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-00 "), { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" });
  assert.deepEqual(parseTraceParent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-later"), { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" }, "a later version may carry more");
  for (const bad of ["", "nonsense", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-more", "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01"]) {
    assert.match((parseTraceParent(bad) as { error: string }).error, /TRACEPARENT must be a W3C traceparent/, bad);
  }
  assert.match((parseTraceParent("00-00000000000000000000000000000000-b7ad6b7169203331-01") as { error: string }).error, /all-zero/);
});

test("a tool call's processes get TRACEPARENT naming its span, whether asked for before its start or after", () => {
  const r = recording();
  const run = traceRun(query, {}, r.deps);
  const early = run.toolEnv("b1");
  run.event({ type: "tool.started", toolName: "Bash", toolUseId: "b1", input: { command: "ls" } });
  run.event({ type: "tool.started", toolName: "Bash", toolUseId: "b2", input: { command: "ls" } });
  const late = run.toolEnv("b2");
  run.event({ type: "tool.completed", toolUseId: "b1", output: "", isError: false });
  run.event({ type: "tool.completed", toolUseId: "b2", output: "", isError: false });
  run.end(ok);
  const [b1, b2] = r.byName("harness.tool");
  assert.deepEqual(early, { TRACEPARENT: `00-${b1.traceId}-${b1.spanId}-01` });
  assert.deepEqual(late, { TRACEPARENT: `00-${b2.traceId}-${b2.spanId}-01` });
  assert.notEqual(b1.spanId, b2.spanId);
});
