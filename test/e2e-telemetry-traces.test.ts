// OpenTelemetry traces end to end, switched on as Claude Code's are (CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1
// with OTEL_TRACES_EXPORTER): `harness run` with the model faked at the wire scripting a Bash call
// then an answer, a fake OTLP collector receiving one trace in each protocol.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic, type FakeOtlpCollector, type SpanRecord } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../packages/cli/src/test-support.ts";
import { bashThenAnswer, collector } from "./telemetry-support.ts";

const traced = (endpoint: string, more: Record<string, string> = {}) => ({
  CLAUDE_CODE_ENABLE_TELEMETRY: "1",
  CLAUDE_CODE_ENHANCED_TELEMETRY_BETA: "1",
  OTEL_TRACES_EXPORTER: "otlp",
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  ...more,
});

async function runTraced(t: Parameters<typeof collector>[0], env: (otlp: FakeOtlpCollector) => Record<string, string>, options: { grpc?: boolean; command?: string } = {}) {
  const fake = await withFake(t, startFakeAnthropic({ replies: bashThenAnswer("traced-ok", options.command) }));
  const otlp = await collector(t, options);
  const run = await harness(["run", "--cwd", tempDir(t), "--allowedTools", "Bash", "--model", "claude-sonnet-4-5", "say ok please"], {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: fake.url,
    ...env(otlp),
  }).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /It printed traced-ok\./);
  return otlp;
}

/** The run's one trace: the interaction root, two model requests and Bash under it. */
function checkTree(spans: SpanRecord[], rootParent = "") {
  const [root] = spans.filter((s) => s.name === "harness.interaction");
  assert.ok(root, `an interaction span among ${spans.map((s) => s.name).join(", ")}`);
  assert.equal(root.parentSpanId, rootParent);
  assert.match(root.traceId, /^[0-9a-f]{32}$/);
  assert.match(root.spanId, /^[0-9a-f]{16}$/);
  const llm = spans.filter((s) => s.name === "harness.llm_request");
  const tools = spans.filter((s) => s.name === "harness.tool");
  assert.equal(llm.length, 2);
  assert.equal(tools.length, 1);
  assert.equal(spans.length, 4, "nothing else is traced");
  for (const s of spans) {
    assert.equal(s.traceId, root.traceId, "one trace");
    assert.ok(s.end >= s.start, `${s.name} does not end before it starts`);
    assert.equal(s.resource["service.name"], "harness");
    assert.equal(typeof s.attributes["session.id"], "string");
  }
  for (const s of [...llm, ...tools]) {
    assert.equal(s.parentSpanId, root.spanId, `${s.name} is the interaction's child`);
    assert.ok(s.start >= root.start && s.end <= root.end, `${s.name} lies within the interaction`);
  }
  assert.equal(new Set(spans.map((s) => s.spanId)).size, 4, "each span its own id");
  assert.equal(root.status.code, 1, "the run succeeded");
  assert.equal(root.attributes.user_prompt_length, "say ok please".length);
  assert.equal(root.attributes["gen_ai.operation.name"], "invoke_agent");
  const [first, second] = llm.sort((a, b) => (a.start < b.start ? -1 : 1));
  assert.equal(first.attributes.model, "claude-sonnet-4-5");
  assert.equal(first.attributes["gen_ai.request.model"], "claude-sonnet-4-5");
  assert.equal(first.attributes["gen_ai.system"], "anthropic");
  assert.equal(first.attributes["gen_ai.provider.name"], "anthropic");
  assert.equal(first.attributes["gen_ai.operation.name"], "chat");
  assert.equal(first.attributes.input_tokens, 100);
  assert.equal(first.attributes.output_tokens, 20);
  assert.equal(first.attributes["gen_ai.usage.input_tokens"], 100);
  assert.equal(first.attributes["gen_ai.usage.output_tokens"], 20);
  assert.equal(second.attributes.cache_read_tokens, 40);
  assert.ok((first.attributes.cost_usd as number) > 0);
  assert.equal(first.attributes.success, true);
  assert.equal(typeof first.attributes.duration_ms, "number");
  assert.ok(first.start <= tools[0].start && tools[0].end <= second.start, `the call, then Bash, then the next call: ${[first.start, first.end, tools[0].start, tools[0].end, second.start, second.end].join(" ")}`);
  const [bash] = tools;
  assert.equal(bash.attributes.tool_name, "Bash");
  assert.equal(bash.attributes["gen_ai.tool.name"], "Bash");
  assert.equal(bash.attributes["gen_ai.operation.name"], "execute_tool");
  assert.equal(bash.attributes.success, true);
  assert.equal(bash.attributes.decision_type, "accept");
  assert.equal(bash.attributes.decision_source, "config");
  assert.equal(typeof bash.attributes.duration_ms, "number");
  assert.equal(bash.status.code, 1);
  return { root, bash };
}

test("harness run sends one trace: the interaction, its two model requests and the Bash call beneath it (http/protobuf), without the prompt's or the tool's content by default", async (t) => {
  const otlp = await runTraced(t, (o) => traced(o.url));
  assert.ok(otlp.requests.every((r) => r.signal === "traces" && r.path === "/v1/traces" && r.protocol === "http/protobuf"), "traces only: no metrics or logs exporter was named");
  const { root, bash } = checkTree(otlp.spans());
  assert.equal(root.attributes.user_prompt, undefined);
  assert.equal(bash.attributes.tool_input, undefined);
  assert.equal(bash.attributes.tool_output, undefined);
});

test("over http/json, with OTEL_LOG_USER_PROMPTS and OTEL_LOG_TOOL_DETAILS, the prompt and the tool's input and output are on their spans; a TRACEPARENT given makes the interaction its child, and Bash's command gets its own span's", async (t) => {
  const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  const command = 'echo "traced-ok parent=$TRACEPARENT"';
  const otlp = await runTraced(t, (o) => traced(o.url, { OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_LOG_USER_PROMPTS: "1", OTEL_LOG_TOOL_DETAILS: "1", TRACEPARENT: parent }), { command });
  assert.ok(otlp.requests.every((r) => r.protocol === "http/json"));
  const spans = otlp.spans();
  const { root, bash } = checkTree(spans, "b7ad6b7169203331");
  assert.equal(root.traceId, "0af7651916cd43dd8448eb211c80319c");
  assert.equal(root.attributes.user_prompt, "say ok please");
  assert.match(String(bash.attributes.tool_input), /echo \\"traced-ok parent=\$TRACEPARENT/);
  assert.match(String(bash.attributes.tool_output), new RegExp(`traced-ok parent=00-${root.traceId}-${bash.spanId}-01`), "as Claude Code's Bash commands, this one's TRACEPARENT names its tool span");
});

test("over grpc the trace reaches the TraceService's Export", async (t) => {
  const otlp = await runTraced(t, (o) => traced(o.grpcUrl!, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }), { grpc: true });
  assert.ok(otlp.requests.every((r) => r.protocol === "grpc" && r.path === "/opentelemetry.proto.collector.trace.v1.TraceService/Export"));
  checkTree(otlp.spans());
});

test("traces stay off without CLAUDE_CODE_ENHANCED_TELEMETRY_BETA, OTEL_TRACES_EXPORTER naming none", async (t) => {
  const otlp = await runTraced(t, (o) => ({ CLAUDE_CODE_ENABLE_TELEMETRY: "1", OTEL_TRACES_EXPORTER: "otlp", OTEL_LOGS_EXPORTER: "otlp", OTEL_EXPORTER_OTLP_ENDPOINT: o.url }));
  assert.ok(otlp.requests.some((r) => r.signal === "logs"), "logs still go");
  assert.equal(otlp.spans().length, 0);
  assert.ok(!otlp.requests.some((r) => r.signal === "traces"));
});
