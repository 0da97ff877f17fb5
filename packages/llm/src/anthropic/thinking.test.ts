// Extended thinking, images and prompt-cache breakpoints with the Anthropic provider: thinking
// streams as deltas and goes back to the model unchanged; what the caller gives passes through.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import type Anthropic from "@anthropic-ai/sdk";
import { type FakeReply, startFakeAnthropic } from "@harness/test-utils";
import { createAnthropicProvider } from "./provider.ts";
import { applyRawEvent, assistantMessage, createStreamState } from "./stream-state.ts";
import { collect, lastDone, textOf, thinkingOf } from "../test-support.ts";
import type { ModelMessage, ModelRequest } from "../types.ts";

async function setup(t: TestContext, replies: FakeReply[]) {
  const fake = await startFakeAnthropic({ replies });
  t.after(() => fake.close());
  const provider = createAnthropicProvider({ apiKey: "test-key", baseURL: fake.url, retryBaseMs: 1 }, {});
  return { fake, provider };
}

const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: "claude-test",
  messages: [{ role: "user", content: "hello" }],
  ...extra,
});

test("thinking streams as deltas and returns to the model unchanged, signature included", async (t) => {
  const { fake, provider } = await setup(t, [
    { thinking: ["The user wants ", "a file read."], text: "Reading.", toolUses: [{ id: "toolu_1", name: "read_file", input: { path: "a.ts" } }] },
    { text: "It is empty." },
  ]);
  const history: ModelMessage[] = [{ role: "user", content: "what is in a.ts?" }];
  const events = await collect(provider.stream({ model: "claude-test", messages: history, thinking: { budgetTokens: 2000 } }));
  assert.deepEqual(thinkingOf(events), ["The user wants ", "a file read."]);
  assert.equal(textOf(events), "Reading.");
  const done = lastDone(events);
  const [thinking, ...rest] = done.message.content as { type: string; signature?: string }[];
  assert.equal(thinking.type, "thinking");
  assert.match(thinking.signature ?? "", /^fake-sig-.+/, "the signature the API sent");
  assert.deepEqual(thinking, { type: "thinking", thinking: "The user wants a file read.", signature: thinking.signature });
  assert.deepEqual(rest.map((b) => b.type), ["text", "tool_use"]);

  history.push(done.message, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "" }] });
  await collect(provider.stream({ model: "claude-test", messages: history, thinking: { budgetTokens: 2000 } }));
  assert.deepEqual(fake.requests[1].body.messages[1], done.message, "the assistant turn goes back exactly as it came");
  assert.deepEqual(fake.requests[1].body.thinking, { type: "enabled", budget_tokens: 2000 });
});

test("without thinking or effort no thinking is requested", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "a" }]);
  await collect(provider.stream(ask()));
  assert.equal("thinking" in fake.requests[0].body, false);
});

test("effort sets the thinking budget unless thinking is given; budgets stay below max_tokens", async (t) => {
  const cases: { request: Partial<ModelRequest>; expected: unknown }[] = [
    { request: { effort: "low" }, expected: { type: "enabled", budget_tokens: 4_000 } },
    { request: { effort: "medium" }, expected: { type: "enabled", budget_tokens: 10_000 } },
    { request: { effort: "high" }, expected: { type: "enabled", budget_tokens: 20_000 } },
    { request: { effort: "max" }, expected: { type: "enabled", budget_tokens: 31_999 } },
    { request: { effort: "max", thinking: { budgetTokens: 3000 } }, expected: { type: "enabled", budget_tokens: 3000 } },
    { request: { effort: "max", maxTokens: 8000 }, expected: { type: "enabled", budget_tokens: 7999 } },
    { request: { thinking: { budgetTokens: 100 } }, expected: { type: "enabled", budget_tokens: 1024 } },
    { request: { effort: "high", maxTokens: 1024 }, expected: undefined },
    { request: { effort: "high", thinking: { budgetTokens: 0 } }, expected: undefined },
  ];
  const { fake, provider } = await setup(t, cases.map((): FakeReply => ({ text: "ok" })));
  for (const { request } of cases) await collect(provider.stream(ask(request)));
  cases.forEach(({ request, expected }, i) => {
    assert.deepEqual(fake.requests[i].body.thinking, expected, `thinking for ${JSON.stringify(request)}`);
    if (expected) assert.ok(fake.requests[i].body.max_tokens > (expected as { budget_tokens: number }).budget_tokens);
  });
});

test("a tool call made without thinking is continued without thinking, as the API requires", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "a" }, { text: "b" }]);
  const toolTurn = (withThinking: boolean): ModelMessage[] => [
    { role: "user", content: "run it" },
    {
      role: "assistant",
      content: [
        ...(withThinking ? [{ type: "thinking" as const, thinking: "run", signature: "s" }] : []),
        { type: "tool_use" as const, id: "toolu_1", name: "bash", input: {} },
      ],
    },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] },
  ];
  await collect(provider.stream(ask({ messages: toolTurn(false), effort: "high" })));
  await collect(provider.stream(ask({ messages: toolTurn(true), effort: "high" })));
  assert.equal("thinking" in fake.requests[0].body, false);
  assert.deepEqual(fake.requests[1].body.thinking, { type: "enabled", budget_tokens: 20_000 });
});

test("images, tool results with images and cache breakpoints reach the API as given", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "a cat" }]);
  const image = { type: "image" as const, source: { type: "base64" as const, media_type: "image/png" as const, data: "iVBORw0KGgo=" } };
  const request: ModelRequest = {
    model: "claude-test",
    system: [
      { type: "text", text: "Be brief." },
      { type: "text", text: "Project notes.", cache_control: { type: "ephemeral", ttl: "1h" } },
    ],
    tools: [
      { name: "glob", description: "Find files", input_schema: { type: "object" } },
      { name: "read_file", description: "Read a file", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } },
    ],
    messages: [
      { role: "user", content: [{ type: "text", text: "What is this?" }, image] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_9", name: "read_file", input: { path: "cat.png" } }] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_9", content: [{ type: "text", text: "cat.png" }, image], cache_control: { type: "ephemeral" } }],
      },
    ],
  };
  await collect(provider.stream(request));
  const body = fake.requests[0].body;
  assert.deepEqual(body.system, request.system);
  assert.deepEqual(body.tools, request.tools);
  assert.deepEqual(body.messages, request.messages);
});

test("a thinking block still streaming is left out of the message; redacted thinking is kept", () => {
  const state = createStreamState();
  const raw = [
    { type: "content_block_start", index: 0, content_block: { type: "redacted_thinking", data: "EncryptedOpaque==" } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "thinking", thinking: "", signature: "" } },
    { type: "content_block_delta", index: 1, delta: { type: "thinking_delta", thinking: "Half a thou" } },
  ] as Anthropic.RawMessageStreamEvent[];
  const events = raw.map((event) => applyRawEvent(state, event)).filter((e) => e !== undefined);
  assert.deepEqual(events, [{ type: "thinking-delta", text: "Half a thou" }]);
  assert.deepEqual(assistantMessage(state).content, [{ type: "redacted_thinking", data: "EncryptedOpaque==" }]);

  applyRawEvent(state, { type: "content_block_delta", index: 1, delta: { type: "signature_delta", signature: "SiG" } } as Anthropic.RawMessageStreamEvent);
  applyRawEvent(state, { type: "content_block_stop", index: 1 } as Anthropic.RawMessageStreamEvent);
  assert.deepEqual(assistantMessage(state).content, [
    { type: "redacted_thinking", data: "EncryptedOpaque==" },
    { type: "thinking", thinking: "Half a thou", signature: "SiG" },
  ]);
});

test("Claude 4.6 and later think adaptively: the effort goes in output_config, and no token budget is sent", async (t) => {
  const cases: { request: Partial<ModelRequest>; thinking: unknown; effort?: string }[] = [
    { request: { model: "claude-opus-4-7", effort: "high" }, thinking: { type: "adaptive" }, effort: "high" },
    { request: { model: "claude-opus-4-6", effort: "max" }, thinking: { type: "adaptive" }, effort: "max" },
    // Sonnet has no "max".
    { request: { model: "claude-sonnet-4-6", effort: "max" }, thinking: { type: "adaptive" }, effort: "high" },
    { request: { model: "claude-sonnet-4-6-20260101", effort: "low" }, thinking: { type: "adaptive" }, effort: "low" },
    { request: { model: "claude-mythos-preview", thinking: { budgetTokens: 8000 } }, thinking: { type: "adaptive" }, effort: "medium" },
    { request: { model: "claude-opus-5", thinking: { budgetTokens: 0 }, effort: "high" }, thinking: undefined },
    { request: { model: "claude-opus-4-7" }, thinking: undefined },
    // A gateway's or cloud's spelling.
    { request: { model: "claude-opus-4-7@20260101", effort: "low" }, thinking: { type: "adaptive" }, effort: "low" },
    { request: { model: "us.anthropic.claude-sonnet-4-6-v1", effort: "max" }, thinking: { type: "adaptive" }, effort: "high" },
    { request: { model: "claude-3-7-sonnet-20250219", effort: "low" }, thinking: { type: "enabled", budget_tokens: 4_000 } },
    { request: { model: "claude-sonnet-4-5-20250929", effort: "low" }, thinking: { type: "enabled", budget_tokens: 4_000 } },
    // Older models keep the budget: Opus 4.0 (dated id), 4.1 and Haiku 4.5.
    { request: { model: "claude-opus-4-20250514", effort: "low" }, thinking: { type: "enabled", budget_tokens: 4_000 } },
    { request: { model: "claude-opus-4-1-20250805", effort: "low" }, thinking: { type: "enabled", budget_tokens: 4_000 } },
    { request: { model: "claude-haiku-4-5", effort: "low" }, thinking: { type: "enabled", budget_tokens: 4_000 } },
  ];
  const { fake, provider } = await setup(t, cases.map((): FakeReply => ({ text: "ok" })));
  for (const { request } of cases) await collect(provider.stream(ask(request)));
  cases.forEach(({ request, thinking, effort }, i) => {
    const body = fake.requests[i].body as { thinking?: unknown; output_config?: { effort?: string } };
    assert.deepEqual(body.thinking, thinking, `thinking for ${JSON.stringify(request)}`);
    assert.equal(body.output_config?.effort, effort, `effort for ${JSON.stringify(request)}`);
  });
});
