// The provider against the fake Messages server, through the real SDK: what a caller sees of
// streamed text, tool calls and usage, and what reaches the API.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test, type TestContext } from "node:test";
import { type FakeReply, startFakeAnthropic } from "@harness/test-utils";
import { createAnthropicProvider } from "./provider.ts";
import type { ModelEvent, ModelRequest } from "../types.ts";

async function setup(t: TestContext, replies: FakeReply[]) {
  const fake = await startFakeAnthropic({ replies });
  t.after(() => fake.close());
  const provider = createAnthropicProvider({ apiKey: "test-key", baseURL: fake.url, retryBaseMs: 1 }, {});
  return { fake, provider };
}

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

function lastDone(events: ModelEvent[]) {
  const last = events.at(-1);
  assert.equal(last?.type, "done", "the stream ends with a done event");
  return last as Extract<ModelEvent, { type: "done" }>;
}

const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "claude-test",
  messages: [{ role: "user", content: "hello" }],
  ...extra,
});

test("text streams as one delta per chunk and the done message holds the whole text", async (t) => {
  const { provider } = await setup(t, [{ text: ["Hel", "lo, ", "world"] }]);
  const events = await collect(provider.stream(ask()));
  assert.deepEqual(
    events.filter((e) => e.type === "text-delta").map((e) => e.text),
    ["Hel", "lo, ", "world"],
  );
  const done = lastDone(events);
  assert.equal(done.stopReason, "end_turn");
  assert.equal(done.errorMessage, undefined);
  assert.deepEqual(done.message, { role: "assistant", content: [{ type: "text", text: "Hello, world" }] });
});

test("a tool input streamed in several pieces arrives as deltas and then as one parsed input", async (t) => {
  const input = { path: "src/main.ts", lines: [1, 2, 3], options: { follow: true } };
  const { provider } = await setup(t, [{ text: "Reading.", toolUses: [{ id: "toolu_a", name: "read_file", input, chunks: 5 }] }]);
  const events = await collect(provider.stream(ask()));
  const toolEvents = events.filter((e) => e.type.startsWith("tool-call"));
  assert.deepEqual(toolEvents[0], { type: "tool-call-start", id: "toolu_a", name: "read_file" });
  const deltas = toolEvents.filter((e) => e.type === "tool-call-delta");
  assert.ok(deltas.length >= 3, `several input deltas, got ${deltas.length}`);
  assert.ok(deltas.every((d) => d.id === "toolu_a"));
  assert.deepEqual(JSON.parse(deltas.map((d) => d.partialJson).join("")), input);
  assert.deepEqual(toolEvents.at(-1), { type: "tool-call-end", id: "toolu_a", name: "read_file", input });
  const done = lastDone(events);
  assert.equal(done.stopReason, "tool_use");
  assert.deepEqual(done.message.content, [
    { type: "text", text: "Reading." },
    { type: "tool_use", id: "toolu_a", name: "read_file", input },
  ]);
});

test("two tool calls in one reply keep their order, ids and inputs", async (t) => {
  const { provider } = await setup(t, [
    {
      toolUses: [
        { name: "glob", input: { pattern: "**/*.ts" } },
        { name: "grep", input: { pattern: "TODO", path: "src" }, chunks: 2 },
      ],
    },
  ]);
  const events = await collect(provider.stream(ask()));
  const starts = events.filter((e) => e.type === "tool-call-start");
  const ends = events.filter((e) => e.type === "tool-call-end");
  assert.deepEqual(starts.map((e) => e.name), ["glob", "grep"]);
  assert.notEqual(starts[0].id, starts[1].id);
  assert.match(starts[0].id, /^toolu_/);
  assert.deepEqual(
    ends.map((e) => [e.id, e.name, e.input]),
    [
      [starts[0].id, "glob", { pattern: "**/*.ts" }],
      [starts[1].id, "grep", { pattern: "TODO", path: "src" }],
    ],
  );
  // The second call's deltas come after the first call ended.
  const firstEnd = events.indexOf(ends[0]);
  const secondDeltas = events.filter((e) => e.type === "tool-call-delta" && e.id === starts[1].id);
  assert.ok(secondDeltas.every((d) => events.indexOf(d) > firstEnd));
  const done = lastDone(events);
  assert.equal(done.stopReason, "tool_use");
  assert.deepEqual(
    done.message.content,
    ends.map((e) => ({ type: "tool_use", id: e.id, name: e.name, input: e.input })),
  );
});

test("blank text is neither kept in the reply nor sent in a request: the API would refuse it", async (t) => {
  const { fake, provider } = await setup(t, [{ text: ["\n", "\n"], toolUses: [{ name: "Bash", input: { command: "ls" } }] }]);
  const history: ModelRequest["messages"] = [
    { role: "user", content: "first" },
    { role: "assistant", content: [{ type: "text", text: "\n\n" }, { type: "tool_use", id: "t0", name: "Bash", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t0", content: "", is_error: true }] },
  ];
  const done = lastDone(await collect(provider.stream(ask({ messages: history }))));
  assert.deepEqual(
    (done.message.content as { type: string }[]).map((block) => block.type),
    ["tool_use"],
  );
  const sent = fake.requests[0].body.messages;
  assert.deepEqual(sent[1].content, [{ type: "tool_use", id: "t0", name: "Bash", input: {} }]);
  assert.deepEqual(sent[2].content, [{ type: "tool_result", tool_use_id: "t0", content: "(no content)", is_error: true }]);
});

test("a refusal's explanation, with its category, comes with the done event", async (t) => {
  const { provider } = await setup(t, [{ text: "I can't", stopReason: "refusal", stopDetails: { category: "cyber", explanation: "This could enable malware." } }, { text: "x", stopReason: "refusal", stopDetails: { category: null, explanation: null } }]);
  const done = lastDone(await collect(provider.stream(ask())));
  assert.deepEqual([done.stopReason, done.refusal], ["refusal", "This could enable malware. (cyber)"]);
  const bare = lastDone(await collect(provider.stream(ask())));
  assert.deepEqual([bare.stopReason, bare.refusal], ["refusal", undefined]);
});

test("a tool called with no input gets an empty object", async (t) => {
  const { provider } = await setup(t, [{ toolUses: [{ name: "list_todos", input: {}, chunks: 0 }] }]);
  const events = await collect(provider.stream(ask()));
  const end = events.find((e) => e.type === "tool-call-end");
  assert.deepEqual(end, { type: "tool-call-end", id: end?.type === "tool-call-end" ? end.id : "", name: "list_todos", input: {} });
  assert.equal(lastDone(events).stopReason, "tool_use");
});

test("malformed tool input JSON ends that call with an input error; the reply and the other calls go on", async (t) => {
  const { provider } = await setup(t, [
    { text: "Let me look.", toolUses: [{ name: "read_file", input: {}, inputJson: '{"path": "a.ts"' }, { name: "list_todos", input: { all: true } }] },
  ]);
  const events = await collect(provider.stream(ask()));
  const ends = events.filter((e) => e.type === "tool-call-end");
  assert.equal(ends.length, 2);
  const [bad, good] = ends;
  assert.deepEqual(bad.input, {});
  assert.match(bad.inputError ?? "", /^The input of this read_file call was not a valid JSON object, so the tool did not run: "\{\\"path\\": \\"a\.ts\\"".*output token limit/);
  assert.deepEqual(good.input, { all: true });
  assert.equal(good.inputError, undefined);
  const done = lastDone(events);
  assert.equal(done.stopReason, "tool_use");
  assert.deepEqual(done.message.content, [
    { type: "text", text: "Let me look." },
    { type: "tool_use", id: bad.id, name: "read_file", input: {} },
    { type: "tool_use", id: good.id, name: "list_todos", input: { all: true } },
  ]);
});

test("usage maps input, output, cache-read and cache-write tokens, priced by the model's list price", async (t) => {
  const usage = { input_tokens: 1200, output_tokens: 345, cache_read_input_tokens: 9000, cache_creation_input_tokens: 250 };
  const { provider } = await setup(t, [{ text: "hi", usage }, { text: "hi", usage }]);
  const done = lastDone(await collect(provider.stream(ask({ model: "claude-sonnet-4-6" }))));
  const { costUsd, ...tokens } = done.usage;
  assert.deepEqual(tokens, { inputTokens: 1200, outputTokens: 345, cacheReadTokens: 9000, cacheWriteTokens: 250 });
  // Sonnet: $3 input, $15 output, $3.75 cache write, $0.30 cache read per million tokens.
  const expected = (1200 * 3 + 345 * 15 + 250 * 3.75 + 9000 * 0.3) / 1e6;
  assert.ok(Math.abs((costUsd ?? -1) - expected) < 1e-12, `cost ${costUsd}, expected ${expected}`);
  const unpriced = lastDone(await collect(provider.stream(ask({ model: "my-finetune" }))));
  assert.equal(unpriced.usage.costUsd, undefined, "a model without a known price has no cost, not 0");
  assert.equal(unpriced.usage.unpricedCalls, 1);
});

test("the stop reason the model gives is passed on", async (t) => {
  const { provider } = await setup(t, [{ text: "cut off mid", stopReason: "max_tokens" }]);
  const done = lastDone(await collect(provider.stream(ask())));
  assert.equal(done.stopReason, "max_tokens");
  assert.deepEqual(done.message.content, [{ type: "text", text: "cut off mid" }]);
});

test("the request carries model, system, messages, tools, max_tokens, stream:true and the API key", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "a" }, { text: "b" }]);
  const tools = [
    { name: "read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  ];
  const messages: ModelRequest["messages"] = [
    { role: "user", content: "first" },
    { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "x" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "file text" }] },
  ];
  const system = [{ type: "text" as const, text: "You are terse.", cache_control: { type: "ephemeral" as const } }];
  await collect(provider.stream({ model: "claude-x", system, messages, tools, maxTokens: 777 }));
  await collect(provider.stream(ask()));

  const [first, second] = fake.requests;
  assert.equal(first.path, "/v1/messages");
  assert.equal(first.headers["x-api-key"], "test-key");
  assert.equal(first.headers.authorization, undefined, "the key is not sent twice");
  assert.deepEqual(first.body, { model: "claude-x", max_tokens: 777, messages, stream: true, system, tools });
  assert.equal(second.body.max_tokens, 32_000, "the provider's default max_tokens");
  assert.equal("system" in second.body, false, "no system prompt, no system field");
  assert.equal("tools" in second.body, false, "no tools, no tools field");
});

test("ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL from the environment are used when no options say otherwise", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "from env" }] });
  t.after(() => fake.close());
  const provider = createAnthropicProvider({}, { ANTHROPIC_API_KEY: "env-key", ANTHROPIC_BASE_URL: fake.url });
  const done = lastDone(await collect(provider.stream(ask())));
  assert.deepEqual(done.message.content, [{ type: "text", text: "from env" }]);
  assert.equal(fake.requests[0].headers["x-api-key"], "env-key");
});

test("ANTHROPIC_AUTH_TOKEN is sent as a bearer token when there is no key; a key wins over it", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "with a token" }, { text: "with a key" }] });
  t.after(() => fake.close());
  await collect(createAnthropicProvider({}, { ANTHROPIC_AUTH_TOKEN: "tok", ANTHROPIC_BASE_URL: fake.url }).stream(ask()));
  assert.equal(fake.requests[0].headers.authorization, "Bearer tok");
  assert.equal(fake.requests[0].headers["x-api-key"], undefined);
  await collect(createAnthropicProvider({ authToken: "tok" }, { ANTHROPIC_API_KEY: "key", ANTHROPIC_BASE_URL: fake.url }).stream(ask()));
  assert.equal(fake.requests[1].headers["x-api-key"], "key");
  assert.equal(fake.requests[1].headers.authorization, undefined);
});

test("without any credentials the run's error names the variable to set, and nothing is sent", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "unused" }] });
  t.after(() => fake.close());
  const done = lastDone(await collect(createAnthropicProvider({ maxRetries: 3 }, { ANTHROPIC_BASE_URL: fake.url }).stream(ask())));
  assert.equal(done.stopReason, "error");
  assert.equal(done.errorMessage, "ANTHROPIC_API_KEY is not set; export your Anthropic API key (or ANTHROPIC_AUTH_TOKEN) to use Anthropic models");
  assert.equal(fake.requests.length, 0);
});

test("a consumer that stops reading early closes the request", async (t) => {
  const { fake, provider } = await setup(t, [{ text: ["one", "two"], hold: new Promise(() => {}) }, { text: "next" }]);
  for await (const event of provider.stream(ask())) {
    if (event.type === "text-delta") break;
  }
  // The provider is still usable and the fake served the next request normally.
  const done = lastDone(await collect(provider.stream(ask())));
  assert.deepEqual(done.message.content, [{ type: "text", text: "next" }]);
  assert.equal(fake.requests.length, 2);
});

test("malformed retry settings are rejected when the provider is created, naming the variable", () => {
  assert.throws(() => createAnthropicProvider({ apiKey: "k" }, { HARNESS_MODEL_RETRIES: "lots" }), /HARNESS_MODEL_RETRIES.*"lots"/);
  assert.throws(() => createAnthropicProvider({ apiKey: "k" }, { HARNESS_RETRY_BASE_MS: "-5" }), /HARNESS_RETRY_BASE_MS/);
  assert.throws(() => createAnthropicProvider({ apiKey: "k", maxRetries: 1.5 }, {}), /maxRetries/);
  assert.throws(() => createAnthropicProvider({ apiKey: "k", maxTokens: 0 }, {}), /maxTokens/);
});

test("the SDK's warning about a deprecated model is a warning event, once per provider, and not printed", async (t) => {
  const { provider } = await setup(t, [{ text: "one" }, { text: "two" }]);
  const printed: unknown[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => printed.push(args);
  t.after(() => (console.warn = warn));
  const first = await collect(provider.stream(ask({ model: "claude-sonnet-4-5" })));
  const second = await collect(provider.stream(ask({ model: "claude-sonnet-4-5" })));
  const warnings = first.filter((e) => e.type === "warning");
  assert.equal(warnings.length, 1);
  assert.match(warnings[0].message, /^The model 'claude-sonnet-4-5' is deprecated and will reach end-of-life on .+ Please migrate to a newer model\./);
  assert.equal(first[0].type, "warning", "said before the reply");
  assert.equal(lastDone(first).stopReason, "end_turn");
  assert.deepEqual(second.filter((e) => e.type === "warning"), [], "said once");
  assert.deepEqual(printed, []);

  // A model the API does not deprecate gets none.
  const { provider: fresh } = await setup(t, [{ text: "ok" }]);
  assert.deepEqual((await collect(fresh.stream(ask()))).filter((e) => e.type === "warning"), []);
});

test("a caller that stops reading at the warning closes the model's stream", async (t) => {
  let closed = false;
  const server = http.createServer((_req, res) => {
    res.on("close", () => (closed = true));
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write(`event: message_start\ndata: ${JSON.stringify({ type: "message_start", message: { id: "m", type: "message", role: "assistant", content: [], model: "claude-sonnet-4-5", stop_reason: null, usage: { input_tokens: 1, output_tokens: 0 } } })}\n\n`);
    // Then nothing: the model thinks for a long time.
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const provider = createAnthropicProvider({ apiKey: "k", baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }, {});
  const warn = console.warn;
  t.after(() => (console.warn = warn));
  console.warn = () => {};
  for await (const event of provider.stream(ask({ model: "claude-sonnet-4-5" }))) {
    assert.equal(event.type, "warning");
    break;
  }
  for (let i = 0; i < 50 && !closed; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(closed, "the connection was closed");
});

test("a model that thinks adaptively is asked for adaptive thinking, so the SDK has nothing to warn about", async (t) => {
  const { provider } = await setup(t, [{ text: "ok" }]);
  const events = await collect(provider.stream(ask({ model: "claude-opus-4-6", thinking: { budgetTokens: 2000 } })));
  assert.deepEqual(events.filter((e) => e.type === "warning"), []);
  assert.equal(lastDone(events).stopReason, "end_turn");
});

test("a complete reply ends the stream at message_stop, even when the server keeps the connection open", async (t) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    const event = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event("message_start", { message: { id: "m", type: "message", role: "assistant", content: [], model: "claude-test", stop_reason: null, usage: { input_tokens: 1, output_tokens: 0 } } });
    event("content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    event("content_block_delta", { index: 0, delta: { type: "text_delta", text: "done" } });
    event("content_block_stop", { index: 0 });
    event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 1 } });
    event("message_stop", {});
    // And the body is never ended.
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const provider = createAnthropicProvider({ apiKey: "k", baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, streamIdleMs: 60_000 }, {});
  const started = performance.now();
  const done = lastDone(await collect(provider.stream(ask())));
  assert.equal(done.stopReason, "end_turn");
  assert.ok(performance.now() - started < 30_000, `it ended at message_stop, not at the idle limit (${Math.round(performance.now() - started)} ms)`);
});
