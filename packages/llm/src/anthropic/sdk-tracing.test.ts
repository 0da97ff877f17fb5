// The model SDK's OpenTelemetry spans: made only when something in the process can receive them.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { startFakeAnthropic } from "@harness/test-utils";
import { createAnthropicProvider } from "./provider.ts";
import { sdkTracingOption } from "./sdk-tracing.ts";
import { collect, textOf } from "../test-support.ts";

const GLOBAL = Symbol.for("opentelemetry.js.api.1");
type Registry = { [GLOBAL]?: Record<string, unknown> };

/** Registers, as @opentelemetry/api's setGlobalTracerProvider would, a tracer provider that keeps
 * the names of the spans started; removed when the test ends. */
function registerTracerProvider(t: TestContext): string[] {
  const started: string[] = [];
  const span = new Proxy(
    { spanContext: () => ({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 }), isRecording: () => true },
    { get: (target, name) => (name in target ? target[name as keyof typeof target] : () => span) },
  );
  const provider = { getTracer: () => ({ startSpan: (name: string) => (started.push(name), span) }) };
  (globalThis as Registry)[GLOBAL] = { version: "1.10.0", trace: provider };
  t.after(() => delete (globalThis as Registry)[GLOBAL]);
  return started;
}

test("with nothing registered to receive them, the SDK is told to make no spans", () => {
  assert.equal((globalThis as Registry)[GLOBAL], undefined, "no OpenTelemetry global in this test process");
  assert.equal(sdkTracingOption({}), false);
});

test("ANTHROPIC_OPEN_TELEMETRY set, whatever its value, leaves the choice to the SDK", () => {
  assert.equal(sdkTracingOption({ ANTHROPIC_OPEN_TELEMETRY: "true" }), undefined);
  assert.equal(sdkTracingOption({ ANTHROPIC_OPEN_TELEMETRY: "false" }), undefined);
});

test("a registered propagator alone keeps the SDK's tracing (it carries the trace context on)", (t) => {
  (globalThis as Registry)[GLOBAL] = { version: "1.10.0", propagation: {} };
  t.after(() => delete (globalThis as Registry)[GLOBAL]);
  assert.equal(sdkTracingOption({}), undefined);
});

test("a tracer provider registered in the process gets a span for each model call", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: ["traced"] }, { text: ["again"] }] });
  t.after(() => fake.close());
  // A client made before the registration (no spans) is not the one used after it.
  const before = createAnthropicProvider({ apiKey: "k", baseURL: fake.url }, {});
  assert.equal(textOf(await collect(before.stream({ model: "claude-test", messages: [{ role: "user", content: "hi" }] }))), "traced");
  const started = registerTracerProvider(t);
  const provider = createAnthropicProvider({ apiKey: "k", baseURL: fake.url }, {});
  assert.equal(textOf(await collect(provider.stream({ model: "claude-test", messages: [{ role: "user", content: "hi" }] }))), "again");
  assert.equal(started.length, 1, `one span, for the call made after the registration: ${JSON.stringify(started)}`);
  assert.equal(started[0], "anthropic.messages.create");
});
