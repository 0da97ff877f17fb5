// The OpenAI-compatible provider against the fake chat-completions server, through the real
// `openai` SDK: what a caller sees of streamed text, reasoning, tool calls and usage, and what
// reaches the server.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { type FakeOpenAIReply, startFakeOpenAI } from "@harness/test-utils";
import { createOpenAIProvider, type OpenAIProviderOptions } from "./provider.ts";
import { collect, lastDone, textOf, thinkingOf } from "../test-support.ts";
import type { ModelRequest } from "../types.ts";

async function setup(t: TestContext, replies: FakeOpenAIReply[], options: OpenAIProviderOptions = {}) {
  const fake = await startFakeOpenAI({ replies });
  t.after(() => fake.close());
  const provider = createOpenAIProvider({ apiKey: "sk-test", baseURL: fake.url, retryBaseMs: 1, ...options }, {});
  return { fake, provider };
}

const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "gpt-test",
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
  assert.equal(provider.name, "openai");
});

test("reasoning a server streams arrives as thinking deltas, and is kept with the reply, marked as the server's", async (t) => {
  const { provider } = await setup(t, [{ reasoning: ["Let me ", "think."], text: "42" }]);
  const events = await collect(provider.stream(ask()));
  assert.deepEqual(thinkingOf(events), ["Let me ", "think."]);
  assert.ok(events.findIndex((e) => e.type === "thinking-delta") < events.findIndex((e) => e.type === "text-delta"));
  assert.deepEqual(lastDone(events).message.content, [
    { type: "thinking", thinking: "Let me think.", signature: "openai-compatible:reasoning_content" },
    { type: "text", text: "42" },
  ]);
});

test("the reasoning of the current turn goes back in the field it came in (DeepSeek requires it with tool calls); an earlier turn's does not", async (t) => {
  const { fake, provider } = await setup(t, [
    { reasoning: "I should list files.", toolCalls: [{ id: "call_1", name: "ls", arguments: {} }] },
    { text: "Two files." },
    { text: "Hello again." },
  ]);
  const first = lastDone(await collect(provider.stream(ask())));
  const history: ModelRequest["messages"] = [
    { role: "user", content: "what is here?" },
    first.message,
    { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a b" }] },
  ];
  const second = lastDone(await collect(provider.stream(ask({ messages: history }))));
  const sentSecond = fake.requests[1].body.messages as Record<string, unknown>[];
  assert.equal(sentSecond[1].reasoning_content, "I should list files.");
  assert.ok(Array.isArray(sentSecond[1].tool_calls));
  // A new user turn: the earlier reasoning is no longer sent.
  await collect(provider.stream(ask({ messages: [...history, second.message, { role: "user", content: "and now?" }] })));
  const sentThird = fake.requests[2].body.messages as Record<string, unknown>[];
  assert.equal(sentThird[1].reasoning_content, undefined);
});

test("a tool call's arguments stream as deltas and end as one parsed input", async (t) => {
  const input = { path: "src/main.ts", lines: [1, 2, 3], options: { follow: true } };
  const { provider } = await setup(t, [{ text: "Reading.", toolCalls: [{ id: "call_a", name: "read_file", arguments: input, chunks: 5 }] }]);
  const events = await collect(provider.stream(ask()));
  const toolEvents = events.filter((e) => e.type.startsWith("tool-call"));
  assert.deepEqual(toolEvents[0], { type: "tool-call-start", id: "call_a", name: "read_file" });
  const deltas = toolEvents.filter((e) => e.type === "tool-call-delta");
  assert.ok(deltas.length >= 3, `several argument deltas, got ${deltas.length}`);
  assert.deepEqual(JSON.parse(deltas.map((d) => d.partialJson).join("")), input);
  assert.deepEqual(toolEvents.at(-1), { type: "tool-call-end", id: "call_a", name: "read_file", input });
  const done = lastDone(events);
  assert.equal(done.stopReason, "tool_use");
  assert.deepEqual(done.message.content, [
    { type: "text", text: "Reading." },
    { type: "tool_use", id: "call_a", name: "read_file", input },
  ]);
});

test("two tool calls: the first ends when the second begins, both keep their ids and inputs", async (t) => {
  const { provider } = await setup(t, [
    {
      toolCalls: [
        { name: "glob", arguments: { pattern: "**/*.ts" } },
        { name: "grep", arguments: { pattern: "TODO", path: "src" }, chunks: 2 },
      ],
    },
  ]);
  const events = await collect(provider.stream(ask()));
  const starts = events.filter((e) => e.type === "tool-call-start");
  const ends = events.filter((e) => e.type === "tool-call-end");
  assert.deepEqual(starts.map((e) => e.name), ["glob", "grep"]);
  assert.notEqual(starts[0].id, starts[1].id);
  assert.deepEqual(
    ends.map((e) => [e.id, e.name, e.input]),
    [
      [starts[0].id, "glob", { pattern: "**/*.ts" }],
      [starts[1].id, "grep", { pattern: "TODO", path: "src" }],
    ],
  );
  assert.ok(events.indexOf(ends[0]) < events.indexOf(starts[1]), "the first call is announced complete before the second starts");
  const done = lastDone(events);
  assert.equal(done.stopReason, "tool_use");
  assert.deepEqual(
    done.message.content,
    ends.map((e) => ({ type: "tool_use", id: e.id, name: e.name, input: e.input })),
  );
});

test("a tool call sent whole in one chunk (as Ollama does), after a 'stop' finish, is still a tool call", async (t) => {
  const { provider } = await setup(t, [{ toolCalls: [{ name: "bash", arguments: { command: "ls" }, inline: true }], finishReason: "stop" }]);
  const events = await collect(provider.stream(ask()));
  const start = events.find((e) => e.type === "tool-call-start");
  assert.ok(start);
  assert.deepEqual(events.find((e) => e.type === "tool-call-end"), { type: "tool-call-end", id: start.id, name: "bash", input: { command: "ls" } });
  assert.equal(lastDone(events).stopReason, "tool_use");
});

test("malformed tool arguments end that call with an input error, not the stream", async (t) => {
  const { provider } = await setup(t, [{ text: "Let me look.", toolCalls: [{ name: "read_file", arguments: {}, argumentsJson: '{"path": "a.ts"' }] }]);
  const events = await collect(provider.stream(ask()));
  const end = events.find((e) => e.type === "tool-call-end");
  assert.ok(end);
  assert.deepEqual(end.input, {});
  assert.match(end.inputError ?? "", /^The input of this read_file call was not a valid JSON object/);
  const done = lastDone(events);
  assert.equal(done.stopReason, "tool_use");
  assert.deepEqual(done.message.content, [{ type: "text", text: "Let me look." }, { type: "tool_use", id: end.id, name: "read_file", input: {} }]);
});

test("usage: cached prompt tokens count as cache reads, not input; a model without a price has no cost, but a call of unknown price", async (t) => {
  const { provider } = await setup(t, [{ text: "hi", usage: { prompt_tokens: 1000, completion_tokens: 50, cached_tokens: 600 } }]);
  const done = lastDone(await collect(provider.stream(ask())));
  assert.deepEqual(done.usage, { inputTokens: 400, outputTokens: 50, cacheReadTokens: 600, cacheWriteTokens: 0, unpricedCalls: 1 });
});

test("Ollama on this machine costs $0; its cloud models and other servers on this machine have no known price", async (t) => {
  const reply = { text: "hi", usage: { prompt_tokens: 1000, completion_tokens: 50 } };
  const ollama = await setup(t, [reply, reply], { name: "ollama" });
  assert.equal(lastDone(await collect(ollama.provider.stream(ask({ model: "qwen3:8b" })))).usage.costUsd, 0);
  const cloud = lastDone(await collect(ollama.provider.stream(ask({ model: "gpt-oss:120b-cloud" })))).usage;
  assert.equal(cloud.costUsd, undefined);
  assert.equal(cloud.unpricedCalls, 1);
  // A local server that is not Ollama may be a gateway to a paid API (LiteLLM's proxy).
  const other = await setup(t, [reply], { name: "openai" });
  assert.equal(lastDone(await collect(other.provider.stream(ask({ model: "qwen3:8b" })))).usage.unpricedCalls, 1);
});

test("a Claude model behind an OpenAI-compatible gateway is priced as Claude", async (t) => {
  const { provider } = await setup(t, [{ text: "hi", usage: { prompt_tokens: 1_000_000, completion_tokens: 0 } }]);
  const done = lastDone(await collect(provider.stream(ask({ model: "anthropic/claude-haiku-4.5" }))));
  assert.equal(done.usage.costUsd, 1, "a million input tokens of Haiku 4.5 cost $1");
});

test("finish reasons map to stop reasons", async (t) => {
  const { provider } = await setup(t, [
    { text: "cut off", finishReason: "length" },
    { text: "", finishReason: "content_filter" },
  ]);
  assert.equal(lastDone(await collect(provider.stream(ask()))).stopReason, "max_tokens");
  assert.equal(lastDone(await collect(provider.stream(ask()))).stopReason, "refusal");
});

test("the request carries model, system, messages, tools, stream options, effort and the key", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "a" }, { text: "b" }], { maxTokens: 900 });
  const tools = [
    { name: "read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
  ];
  await collect(provider.stream(ask({ system: "You are terse.", tools, maxTokens: 777, effort: "high" })));
  await collect(provider.stream(ask()));
  const [first, second] = fake.requests;
  assert.equal(first.path, "/v1/chat/completions");
  assert.equal(first.headers.authorization, "Bearer sk-test");
  assert.deepEqual(first.body, {
    model: "gpt-test",
    messages: [
      { role: "system", content: "You are terse." },
      { role: "user", content: "hello" },
    ],
    stream: true,
    stream_options: { include_usage: true },
    tools: [{ type: "function", function: { name: "read_file", description: "Read a file", parameters: tools[0].input_schema } }],
    max_tokens: 777,
    reasoning_effort: "high",
  });
  assert.equal(second.body.max_tokens, 900, "the provider's maxTokens when the request names none");
  for (const key of ["tools", "reasoning_effort", "max_completion_tokens"]) assert.equal(key in second.body, false, `no ${key}`);
});

test("without maxTokens anywhere no limit is sent; OpenAI's own API gets max_completion_tokens", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "a" }, { text: "b" }]);
  await collect(provider.stream(ask()));
  assert.equal("max_tokens" in fake.requests[0].body, false);
  const own = createOpenAIProvider({ apiKey: "k", baseURL: fake.url, maxTokensField: "max_completion_tokens" }, {});
  await collect(own.stream(ask({ maxTokens: 100 })));
  assert.equal(fake.requests[1].body.max_completion_tokens, 100);
  assert.equal("max_tokens" in fake.requests[1].body, false);
});

test("OPENAI_API_KEY and OPENAI_BASE_URL from the environment are used when no options say otherwise", async (t) => {
  const fake = await startFakeOpenAI({ replies: [{ text: "from env" }] });
  t.after(() => fake.close());
  const provider = createOpenAIProvider({}, { OPENAI_API_KEY: "env-key", OPENAI_BASE_URL: fake.url });
  const done = lastDone(await collect(provider.stream(ask())));
  assert.deepEqual(done.message.content, [{ type: "text", text: "from env" }]);
  assert.equal(fake.requests[0].headers.authorization, "Bearer env-key");
});

test("OpenAI's own API without a key fails at once, saying which variable to set", async () => {
  const provider = createOpenAIProvider({}, {});
  const events = await collect(provider.stream(ask()));
  const done = lastDone(events);
  assert.equal(events.length, 1);
  assert.equal(done.stopReason, "error");
  assert.match(done.errorMessage ?? "", /OPENAI_API_KEY/);
});

test("a named provider reports its name; a server that needs no key gets a placeholder", async (t) => {
  const fake = await startFakeOpenAI({ replies: [{ text: "local" }] });
  t.after(() => fake.close());
  const provider = createOpenAIProvider({ name: "vllm", baseURL: fake.url }, {});
  assert.equal(provider.name, "vllm");
  assert.equal(textOf(await collect(provider.stream(ask()))), "local");
  assert.match(String(fake.requests[0].headers.authorization), /^Bearer \S+/);
});

test("a consumer that stops reading early closes the request; the provider stays usable", async (t) => {
  const { fake, provider } = await setup(t, [{ text: ["one", "two"], hold: new Promise(() => {}) }, { text: "next" }]);
  for await (const event of provider.stream(ask())) {
    if (event.type === "text-delta") break;
  }
  assert.equal(textOf(await collect(provider.stream(ask()))), "next");
  assert.equal(fake.requests.length, 2);
});
