// Quirks of OpenAI-compatible servers (vLLM, Ollama, llama.cpp, LM Studio, gateways) that the
// provider smooths over, against the fake chat-completions server made to behave as they do.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { type FakeOpenAIOptions, startFakeOpenAI } from "@harness/test-utils";
import { createOpenAIProvider, type OpenAIProviderOptions } from "./provider.ts";
import { collect, lastDone, retries, textOf } from "../test-support.ts";
import type { ModelEvent, ModelRequest } from "../types.ts";

async function setup(t: TestContext, options: FakeOpenAIOptions, providerOptions: OpenAIProviderOptions = {}) {
  const fake = await startFakeOpenAI(options);
  t.after(() => fake.close());
  const provider = createOpenAIProvider({ baseURL: fake.url, retryBaseMs: 1, name: "ollama", ...providerOptions }, {});
  return { fake, provider };
}

const ask: ModelRequest = { model: "qwen3:8b", messages: [{ role: "user", content: "hello" }] };

test("a server that refuses stream_options is asked again without it, once, and later requests leave it out", async (t) => {
  const { fake, provider } = await setup(t, { quirks: { rejectsStreamOptions: true }, replies: [{ text: "first" }, { text: "second" }] });
  const events = await collect(provider.stream(ask));
  assert.equal(textOf(events), "first");
  assert.equal(lastDone(events).stopReason, "end_turn");
  assert.equal(retries(events).length, 0, "not a failure the user needs to hear of");
  assert.deepEqual(fake.requests.map((r) => r.body.stream_options), [{ include_usage: true }, undefined]);
  assert.equal(textOf(await collect(provider.stream(ask))), "second");
  assert.equal(fake.requests.length, 3, "the provider remembers the server refuses it");
});

test("a 400 about something else is not sent again without stream_options", async (t) => {
  const { fake, provider } = await setup(t, { replies: [{ kind: "http-error", status: 400, message: "messages: bad role" }, { text: "never" }] });
  const done = lastDone(await collect(provider.stream(ask)));
  assert.equal(done.stopReason, "error");
  assert.equal(fake.requests.length, 1);
});

test("a server that never sends usage leaves the call's usage marked as not reported, not as 0 tokens", async (t) => {
  const { provider } = await setup(t, { quirks: { noUsage: true }, replies: [{ text: "no counts" }] });
  const done = lastDone(await collect(provider.stream(ask)));
  assert.equal(done.stopReason, "end_turn");
  assert.equal(done.usage.unreportedCalls, 1);
});

test("a server that sends usage in the last chunk has it counted, and nothing is marked unknown", async (t) => {
  const { provider } = await setup(t, { replies: [{ text: "counted", usage: { prompt_tokens: 40, completion_tokens: 7 } }] });
  const done = lastDone(await collect(provider.stream(ask)));
  assert.equal(done.usage.inputTokens, 40);
  assert.equal(done.usage.outputTokens, 7);
  assert.equal(done.usage.unreportedCalls, undefined);
});

const thinkingOf = (events: ModelEvent[]) => events.map((e) => (e.type === "thinking-delta" ? e.text : "")).join("");

test("<think>…</think> at the start of the content (a reasoning model without a parser) is thinking, not reply text, however the tags are cut", async (t) => {
  const pieces = ["\n<th", "ink>\nLet me", " count.</th", "ink>", "\n\n", "The answer", " is 4."];
  const { provider } = await setup(t, { replies: [{ text: pieces }] });
  const events = await collect(provider.stream(ask));
  assert.equal(textOf(events), "The answer is 4.");
  assert.equal(thinkingOf(events), "Let me count.");
  const done = lastDone(events);
  assert.deepEqual(done.message.content, [
    { type: "thinking", thinking: "Let me count.", signature: "openai-compatible:content" },
    { type: "text", text: "The answer is 4." },
  ]);
});

test("<think> elsewhere in the content is left in the reply, and a reply that only starts like the tag is text", async (t) => {
  const { provider } = await setup(t, { replies: [{ text: ["Use ", "<think> tags"] }, { text: ["<th", "is is html>"] }] });
  assert.equal(textOf(await collect(provider.stream(ask))), "Use <think> tags");
  assert.equal(textOf(await collect(provider.stream(ask))), "<this is html>");
});

test("thinking in tags is not sent back to the server with the reply", async (t) => {
  const { fake, provider } = await setup(t, { replies: [{ text: "<think>hmm</think>Hello." }, { text: "again" }] });
  const first = lastDone(await collect(provider.stream(ask)));
  await collect(provider.stream({ ...ask, messages: [...ask.messages, first.message, { role: "user", content: "and?" }] }));
  assert.deepEqual(fake.requests[1].body.messages, [
    { role: "user", content: "hello" },
    { role: "assistant", content: "Hello." },
    { role: "user", content: "and?" },
  ]);
});

test("an error inside a 200 stream with an HTTP status as its code (OpenRouter) is retried only when that status would be", async (t) => {
  const { fake, provider } = await setup(t, {
    replies: [
      { kind: "stream-error", statusCode: 502, message: "Provider returned error" },
      { text: "recovered" },
      { kind: "stream-error", statusCode: 400, message: "Provider returned error: invalid tool schema" },
      { text: "never" },
    ],
  });
  const first = await collect(provider.stream(ask));
  assert.equal(retries(first)[0]?.reason, "Ollama API stream error (502): Provider returned error");
  assert.equal(textOf(first), "recovered");
  const done = lastDone(await collect(provider.stream(ask)));
  assert.equal(done.stopReason, "error");
  assert.equal(done.errorMessage, "Ollama API stream error (400): Provider returned error: invalid tool schema");
  assert.equal(done.error?.kind, "invalid_request");
  assert.equal(fake.requests.length, 3);
});

/** The error message a run ends with when the server answers `status` with `message`. */
async function failureFor(t: TestContext, status: number, message: string, extra: { code?: string; errorType?: string } = {}): Promise<string> {
  const { provider } = await setup(t, { replies: [{ kind: "http-error", status, message, code: null, ...extra }] });
  return lastDone(await collect(provider.stream({ ...ask, tools: [{ name: "Read", description: "Reads", input_schema: { type: "object" } }] }))).errorMessage ?? "";
}

test("a model Ollama has not pulled: the message gives the command that pulls it", async (t) => {
  const message = await failureFor(t, 404, 'model "qwen3:8b" not found, try pulling it first');
  assert.match(message, /^Ollama API error 404 \(\w+\): model "qwen3:8b" not found, try pulling it first — run `ollama pull qwen3:8b` where Ollama runs$/);
});

test("a model or server that takes no tools: the message names the model and says the agent needs them", async (t) => {
  const ollama = await failureFor(t, 400, "registry.ollama.ai/library/qwen3:8b does not support tools");
  assert.match(ollama, /does not support tools — the model "qwen3:8b" cannot be given tools, which the agent needs: choose a model that supports tool calling$/);
  const vllm = await failureFor(t, 400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set');
  assert.match(vllm, /to be set — the model "qwen3:8b" cannot be given tools, which the agent needs: start vLLM with --enable-auto-tool-choice and the --tool-call-parser of this model$/);
});

test("a conversation longer than the model's context window, in each server's words: the message says what to do", async (t) => {
  const wordings: [string, { code?: string; errorType?: string }][] = [
    ["This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", { code: "context_length_exceeded" }],
    ["This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).", {}],
    ["the request exceeds the available context size, try increasing it", { errorType: "exceed_context_size_error" }],
    ["Please reduce the length of the messages or completion.", {}],
    ["Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8193. Given: 8000 `inputs` tokens and 1000 `max_new_tokens`", {}],
    ["Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with context length of only 8192 tokens", {}],
  ];
  for (const [wording, extra] of wordings) {
    const message = await failureFor(t, 400, wording, extra);
    assert.ok(message.includes(wording), message);
    assert.match(message, / — the conversation does not fit the model's context window: \/compact it or start a new one, and set HARNESS_CONTEXT_WINDOW to the model's window \(in tokens\) so that conversations are compacted before they outgrow it$/, wording);
  }
});

test("a server that refuses the output limit's field is asked again with the other one, once, and keeps to it", async (t) => {
  for (const [refused, taken] of [["max_tokens", "max_completion_tokens"], ["max_completion_tokens", "max_tokens"]] as const) {
    const fake = await startFakeOpenAI({ quirks: { refusesTokensField: refused }, replies: [{ text: "one" }, { text: "two" }] });
    t.after(() => fake.close());
    const provider = createOpenAIProvider({ baseURL: fake.url, retryBaseMs: 1, maxTokensField: refused }, {});
    const limited = { ...ask, maxTokens: 500 };
    assert.equal(textOf(await collect(provider.stream(limited))), "one");
    assert.equal(textOf(await collect(provider.stream(limited))), "two");
    assert.deepEqual(fake.requests.map((r) => [r.body[refused], r.body[taken]]), [[500, undefined], [undefined, 500], [undefined, 500]]);
  }
});

test("a server that goes on refusing after the swap ends with its own error: the field is swapped once", async (t) => {
  const { fake, provider } = await setup(t, { replies: [1, 2, 3].map(() => ({ kind: "http-error" as const, status: 400, message: "Unsupported parameter: 'max_tokens' is not supported with this model." })) });
  const done = lastDone(await collect(provider.stream({ ...ask, maxTokens: 10 })));
  assert.equal(done.stopReason, "error");
  assert.equal(fake.requests.length, 2);
});

test("a 400 that names the output limit's field for its value, not as a field the server refuses, is not sent again with the other field", async (t) => {
  // vLLM's words for a limit larger than the context leaves.
  const tooLarge = "'max_tokens' or 'max_completion_tokens' is too large: 40000. This model's maximum context length is 32768 tokens and your request has 12 input tokens (40000 > 32768 - 12).";
  const { fake, provider } = await setup(t, { replies: [{ kind: "http-error", status: 400, message: tooLarge }, { text: "small enough" }] });
  const done = lastDone(await collect(provider.stream({ ...ask, maxTokens: 40_000 })));
  assert.equal(done.stopReason, "error");
  assert.match(done.errorMessage ?? "", /is too large: 40000/);
  assert.equal(fake.requests.length, 1);
  assert.equal(textOf(await collect(provider.stream({ ...ask, maxTokens: 1_000 }))), "small enough");
  assert.deepEqual(fake.requests.map((r) => [r.body.max_tokens, r.body.max_completion_tokens]), [[40_000, undefined], [1_000, undefined]], "the field is kept");
});

test("a body that ends without [DONE]: whole with its finish_reason, broken without one", async (t) => {
  const { fake, provider } = await setup(t, { replies: [{ text: "whole", omitDone: true }, { text: "cut sho", finishReason: null, omitDone: true }, { finishReason: null, omitDone: true }, { text: "again" }] });
  const whole = lastDone(await collect(provider.stream(ask)));
  assert.equal(whole.stopReason, "end_turn");
  const cut = lastDone(await collect(provider.stream(ask)));
  assert.equal(cut.stopReason, "error");
  assert.equal(cut.errorMessage, "model stream broke after partial output: the model stream ended before a finish_reason");
  assert.deepEqual(cut.message.content, [{ type: "text", text: "cut sho" }]);
  const empty = await collect(provider.stream(ask));
  assert.equal(retries(empty).length, 1, "nothing was shown: it is asked again");
  assert.equal(textOf(empty), "again");
  assert.equal(fake.requests.length, 4);
});

test("a proxy's HTML error page is named by its title, with no error type made up for it", async (t) => {
  const html = "<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>";
  const { provider } = await setup(t, { replies: [1, 2].map(() => ({ kind: "http-error" as const, status: 502, html })) }, { maxRetries: 1 });
  const done = lastDone(await collect(provider.stream(ask)));
  assert.match(done.errorMessage ?? "", /^Ollama API error 502: the server answered with an HTML page, "502 Bad Gateway" \(a proxy or gateway in between\?\)/);
});

test("a server that answers a streaming request with one whole completion: its text, tool calls and usage are taken", async (t) => {
  const call = { name: "Read", arguments: { file_path: "/a" } };
  const { provider } = await setup(t, { quirks: { ignoresStream: true }, replies: [{ text: "Reading.", toolCalls: [call], usage: { prompt_tokens: 30, completion_tokens: 9 } }] });
  const events = await collect(provider.stream(ask));
  assert.equal(textOf(events), "Reading.");
  const done = lastDone(events);
  assert.equal(done.stopReason, "tool_use");
  assert.deepEqual(done.message.content.slice(0, 1), [{ type: "text", text: "Reading." }]);
  assert.deepEqual((done.message.content[1] as { input?: unknown }).input, { file_path: "/a" });
  assert.equal(done.usage.inputTokens, 30);
  assert.equal(done.usage.unreportedCalls, undefined);
});

test("a 429 whose retry-after is longer than a retry would wait (a daily quota) is not retried, and says how long to wait", async (t) => {
  const { fake, provider } = await setup(t, { replies: [{ kind: "http-error", status: 429, retryAfter: 3600, message: "Rate limit exceeded: free-models-per-day" }, { text: "never" }] });
  const events = await collect(provider.stream(ask));
  assert.equal(retries(events).length, 0);
  assert.equal(lastDone(events).errorMessage, "Ollama API error 429 (rate_limit_exceeded): Rate limit exceeded: free-models-per-day — the server asks to wait 60 min before trying again");
  assert.equal(fake.requests.length, 1);
});

test("a key the server refuses (401): the message says which variable gives it", async (t) => {
  const { fake, provider } = await setup(t, { replies: [{ kind: "http-error", status: 401, message: "Incorrect API key provided" }] }, { apiKey: "sk-wrong" });
  const done = lastDone(await collect(provider.stream(ask)));
  assert.equal(done.stopReason, "error");
  assert.match(done.errorMessage ?? "", /Incorrect API key provided.*set OPENAI_API_KEY to a key it accepts/);
  assert.equal(fake.requests.length, 1, "not retried");
});

test('a reply ended with finish_reason "error" and no error object fails the call instead of passing for an answer', async (t) => {
  const { provider } = await setup(t, { replies: [{ text: "half an ans", finishReason: "error" }] });
  const done = lastDone(await collect(provider.stream(ask)));
  assert.equal(done.stopReason, "error");
  assert.match(done.errorMessage ?? "", /finish_reason "error"/);
});
