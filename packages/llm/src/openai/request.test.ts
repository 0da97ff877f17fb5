// Our Anthropic-form transcript as an OpenAI-compatible server receives it: tool calls and their
// results round trip, images become image parts, what has no counterpart is dropped.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { type FakeOpenAIReply, startFakeOpenAI } from "@harness/test-utils";
import { createOpenAIProvider } from "./provider.ts";
import { chatCompletionsRequest, PDF_NOT_SENT } from "./request.ts";
import { collect, lastDone } from "../test-support.ts";
import type { ModelMessage, ModelRequest } from "../types.ts";

async function setup(t: TestContext, replies: FakeOpenAIReply[]) {
  const fake = await startFakeOpenAI({ replies });
  t.after(() => fake.close());
  const provider = createOpenAIProvider({ apiKey: "sk-test", baseURL: fake.url, retryBaseMs: 1 }, {});
  return { fake, provider };
}

const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

test("tool calls and their results round trip: assistant tool_calls, then one tool message per result", async (t) => {
  const { fake, provider } = await setup(t, [
    { text: "Checking both.", toolCalls: [{ name: "read_file", arguments: { path: "a.ts" } }, { name: "bash", arguments: { command: "false" } }] },
    { text: "Done." },
  ]);
  const history: ModelMessage[] = [{ role: "user", content: "look at a.ts and run false" }];
  const first = lastDone(await collect(provider.stream({ model: "gpt-test", messages: history })));
  assert.equal(first.stopReason, "tool_use");
  const [read, bash] = (first.message.content as { type: string; id: string }[]).filter((b) => b.type === "tool_use");
  history.push(first.message, {
    role: "user",
    content: [
      { type: "tool_result", tool_use_id: read.id, content: [{ type: "text", text: "line 1" }, { type: "text", text: "line 2" }] },
      { type: "tool_result", tool_use_id: bash.id, content: "exit code 1", is_error: true },
      { type: "text", text: "Keep going." },
    ],
  });
  const second = lastDone(await collect(provider.stream({ model: "gpt-test", messages: history })));
  assert.equal(second.stopReason, "end_turn");

  assert.deepEqual(fake.requests[1].body.messages, [
    { role: "user", content: "look at a.ts and run false" },
    {
      role: "assistant",
      content: "Checking both.",
      tool_calls: [
        { id: read.id, type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
        { id: bash.id, type: "function", function: { name: "bash", arguments: '{"command":"false"}' } },
      ],
    },
    { role: "tool", tool_call_id: read.id, content: "line 1\n\nline 2" },
    { role: "tool", tool_call_id: bash.id, content: "Error: exit code 1" },
    { role: "user", content: "Keep going." },
  ]);
});

test("an assistant turn of tool calls only has null content", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "ok" }]);
  const messages: ModelMessage[] = [
    { role: "user", content: "list" },
    { role: "assistant", content: [{ type: "tool_use", id: "call_1", name: "ls", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "call_1", content: "a\nb" }] },
  ];
  await collect(provider.stream({ model: "m", messages }));
  assert.deepEqual(fake.requests[0].body.messages.slice(1), [
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "call_1", content: "a\nb" },
  ]);
});

test("images in user input become image parts; images a tool returned follow its result", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "a red pixel" }]);
  const messages: ModelMessage[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "What are these?" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } },
        { type: "image", source: { type: "url", url: "https://example.com/cat.jpg" } },
      ],
    },
    { role: "assistant", content: [{ type: "tool_use", id: "call_img", name: "read_file", input: { path: "shot.png" } }] },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "call_img",
          content: [
            { type: "text", text: "shot.png (1×1)" },
            { type: "image", source: { type: "base64", media_type: "image/png", data: PIXEL } },
          ],
        },
      ],
    },
  ];
  await collect(provider.stream({ model: "m", messages }));
  const sent = fake.requests[0].body.messages;
  assert.deepEqual(sent[0], {
    role: "user",
    content: [
      { type: "text", text: "What are these?" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL}` } },
      { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
    ],
  });
  assert.deepEqual(sent.slice(2), [
    { role: "tool", tool_call_id: "call_img", content: "shot.png (1×1)" },
    {
      role: "user",
      content: [
        { type: "text", text: "Images returned by tool call call_img:" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PIXEL}` } },
      ],
    },
  ]);
});

test("a PDF a tool returned cannot go to an OpenAI-compatible server: its result says so, in words the model can act on", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "ok" }]);
  const document = { type: "document" as const, source: { type: "base64" as const, media_type: "application/pdf" as const, data: "JVBERi0xLjQK" } };
  const messages: ModelMessage[] = [
    { role: "user", content: "summarize paper.pdf" },
    { role: "assistant", content: [{ type: "tool_use", id: "call_pdf", name: "Read", input: { file_path: "paper.pdf" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "call_pdf", content: [document, { type: "text", text: "Read PDF paper.pdf (3 pages, 1.2 KB)." }] }] },
    { role: "user", content: [{ type: "text", text: "and this one" }, document] },
  ];
  await collect(provider.stream({ model: "m", messages }));
  const sent = fake.requests[0].body.messages;
  assert.deepEqual(sent.slice(2), [
    {
      role: "tool",
      tool_call_id: "call_pdf",
      content: `${PDF_NOT_SENT}\n\nRead PDF paper.pdf (3 pages, 1.2 KB).`,
    },
    { role: "user", content: `and this one\n\n${PDF_NOT_SENT}` },
  ]);
  assert.doesNotMatch(JSON.stringify(sent), /JVBERi0/);
  assert.match(PDF_NOT_SENT, /^\(A PDF document was left out: this model's server takes no PDFs\. Extract the text through Bash instead, for example: pdftotext file\.pdf - \| head -500\)$/);
});

test("system blocks are joined; cache breakpoints and thinking blocks are not sent", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "ok" }]);
  const request: ModelRequest = {
    model: "m",
    system: [
      { type: "text", text: "You are terse." },
      { type: "text", text: "Project: harness.", cache_control: { type: "ephemeral" } },
    ],
    messages: [
      { role: "user", content: [{ type: "text", text: "hi", cache_control: { type: "ephemeral", ttl: "1h" } }] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "greet back", signature: "sig" },
          { type: "redacted_thinking", data: "opaque" },
          { type: "text", text: "Hello." },
        ],
      },
      { role: "user", content: "again" },
    ],
    tools: [{ name: "t", description: "d", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
  };
  await collect(provider.stream(request));
  const body = fake.requests[0].body;
  assert.deepEqual(body.messages, [
    { role: "system", content: "You are terse.\n\nProject: harness." },
    { role: "user", content: "hi" },
    { role: "assistant", content: "Hello." },
    { role: "user", content: "again" },
  ]);
  assert.deepEqual(body.tools, [{ type: "function", function: { name: "t", description: "d", parameters: { type: "object" } } }]);
});

test("a stored reasoning block goes back only in the two fields such servers use: a tampered signature names no other field", () => {
  const messages: ModelMessage[] = [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "sneaky", signature: "openai-compatible:role" },
        { type: "text", text: "hello" },
      ],
    },
  ];
  const sent = chatCompletionsRequest({ model: "m", messages }, { maxTokensField: "max_tokens" }).messages;
  assert.deepEqual(sent[1], { role: "assistant", content: "hello" });
  const fair = chatCompletionsRequest({ model: "m", messages: [messages[0]!, { role: "assistant", content: [{ type: "thinking", thinking: "ok", signature: "openai-compatible:reasoning" }, { type: "text", text: "hello" }] }] }, { maxTokensField: "max_tokens" }).messages;
  assert.deepEqual(fair[1], { role: "assistant", content: "hello", reasoning: "ok" });
});

test("a thinking budget reaches a reasoning model as reasoning_effort; other models are not sent a field they may refuse", () => {
  const effortOf = (model: string, extra: Partial<ModelRequest>) =>
    chatCompletionsRequest({ model, messages: [{ role: "user", content: "ultrathink: why?" }], ...extra }, { maxTokensField: "max_tokens" }).reasoning_effort;
  // "ultrathink" asks for 31,999 tokens: the highest level every reasoning model takes.
  assert.equal(effortOf("gpt-5", { thinking: { budgetTokens: 31_999 } }), "high");
  assert.equal(effortOf("openai/o4-mini", { thinking: { budgetTokens: 4_000 } }), "low");
  assert.equal(effortOf("o3", { thinking: { budgetTokens: 10_000 } }), "medium");
  assert.equal(effortOf("gpt-oss-120b", { thinking: { budgetTokens: 20_000 } }), "high");
  for (const model of ["gpt-4o", "gpt-4.1-mini", "deepseek-chat", "gpt-5-chat-latest", "llama3"]) {
    assert.equal(effortOf(model, { thinking: { budgetTokens: 31_999 } }), undefined, model);
  }
  // A budget of 0 turns thinking off; an effort asked for goes to any server as asked.
  assert.equal(effortOf("gpt-5", { thinking: { budgetTokens: 0 }, effort: "high" }), undefined);
  assert.equal(effortOf("llama3", { effort: "low" }), "low");
  assert.equal(effortOf("gpt-5", { effort: "max" }), "max");
  assert.equal(effortOf("gpt-5", {}), undefined);
});
