// The fake Messages server, checked through the official SDK: if the SDK parses what the fake sends,
// so will anything else built on the real wire format.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import Anthropic, { APIError, RateLimitError } from "@anthropic-ai/sdk";
import { startFakeAnthropic } from "./fake-anthropic.ts";
import { claudeCodeRoute, textInWords, toolThenText, webSearchAnswer } from "./fake-anthropic-scenarios.ts";
import type { FakeAnthropicOptions } from "./fake-anthropic-types.ts";

async function setup(t: TestContext, options: FakeAnthropicOptions = {}) {
  const fake = await startFakeAnthropic(options);
  t.after(() => fake.close());
  const client = new Anthropic({ apiKey: "test-key", baseURL: fake.url, maxRetries: 0 });
  return { fake, client };
}

const base = { model: "claude-test", max_tokens: 1024, messages: [{ role: "user" as const, content: "hi" }] };

test("the SDK's message stream assembles text, tool calls, stop reason and usage from the fake's events", async (t) => {
  const { client } = await setup(t, {
    replies: [
      {
        text: ["Let me ", "check."],
        toolUses: [
          { id: "toolu_one", name: "read_file", input: { path: "a.ts" } },
          { name: "grep", input: { pattern: "x", flags: ["-i"] }, chunks: 7 },
        ],
        usage: { input_tokens: 50, output_tokens: 20, cache_read_input_tokens: 7, cache_creation_input_tokens: 3 },
      },
    ],
  });
  const deltas: string[] = [];
  const stream = client.messages.stream(base).on("text", (d) => deltas.push(d));
  const message = await stream.finalMessage();
  assert.deepEqual(deltas, ["Let me ", "check."]);
  assert.equal(message.model, "claude-test");
  assert.equal(message.stop_reason, "tool_use");
  assert.equal(message.content.length, 3);
  assert.deepEqual(message.content[0], { type: "text", text: "Let me check." });
  assert.deepEqual(message.content[1], { type: "tool_use", id: "toolu_one", name: "read_file", input: { path: "a.ts" } });
  const grep = message.content[2];
  assert.equal(grep.type, "tool_use");
  assert.ok(grep.type === "tool_use");
  assert.match(grep.id, /^toolu_/);
  assert.deepEqual(grep.input, { pattern: "x", flags: ["-i"] });
  assert.equal(message.usage.input_tokens, 50);
  assert.equal(message.usage.output_tokens, 20);
  assert.equal(message.usage.cache_read_input_tokens, 7);
  assert.equal(message.usage.cache_creation_input_tokens, 3);
});

test("tool input is streamed as the requested number of input_json_delta pieces", async (t) => {
  const { client } = await setup(t, { replies: [{ toolUses: [{ name: "t", input: { a: "0123456789", b: [1, 2, 3] }, chunks: 4 }] }] });
  const pieces: string[] = [];
  const stream = await client.messages.create({ ...base, stream: true });
  for await (const event of stream) {
    if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") pieces.push(event.delta.partial_json);
  }
  assert.equal(pieces.length, 4);
  assert.deepEqual(JSON.parse(pieces.join("")), { a: "0123456789", b: [1, 2, 3] });
});

test("tool-use ids are unique when not given", async (t) => {
  const tools = Array.from({ length: 20 }, (_, i) => ({ name: `t${i}`, input: {} }));
  const { client } = await setup(t, { replies: [{ toolUses: tools }] });
  const message = await client.messages.stream(base).finalMessage();
  const ids = message.content.map((b) => (b.type === "tool_use" ? b.id : ""));
  assert.equal(new Set(ids).size, 20);
  assert.ok(ids.every((id) => id.startsWith("toolu_")));
});

test("a stream:false request gets the same reply as one JSON message", async (t) => {
  const { client } = await setup(t, { replies: [{ text: ["a", "b"], toolUses: [{ id: "toolu_x", name: "ls", input: { dir: "." } }] }] });
  const message = await client.messages.create(base);
  assert.equal(message.type, "message");
  assert.equal(message.role, "assistant");
  assert.equal(message.stop_reason, "tool_use");
  assert.deepEqual(message.content, [
    { type: "text", text: "ab" },
    { type: "tool_use", id: "toolu_x", name: "ls", input: { dir: "." } },
  ]);
  assert.ok(message.usage.input_tokens > 0 && message.usage.output_tokens > 0, "plausible default usage");
});

test("beta requests with a query string, extra fields and headers are served and recorded as sent", async (t) => {
  const { fake, client } = await setup(t, { replies: [{ text: "beta ok" }] });
  const message = await client.beta.messages
    .stream(
      { ...base, betas: ["interleaved-thinking-2025-05-14"], metadata: { user_id: "u1" }, temperature: 0 },
      // Claude Code sends its requests as /v1/messages?beta=true.
      { query: { beta: "true" } },
    )
    .finalMessage();
  assert.deepEqual(message.content, [{ type: "text", text: "beta ok" }]);
  const [request] = fake.requests;
  assert.equal(request.method, "POST");
  assert.equal(request.path, "/v1/messages");
  assert.equal(request.url, "/v1/messages?beta=true");
  assert.equal(request.headers["anthropic-beta"], "interleaved-thinking-2025-05-14");
  assert.equal(request.body.stream, true);
  assert.deepEqual(request.body.metadata, { user_id: "u1" });
  assert.deepEqual(request.body.messages, base.messages);
  assert.equal(typeof request.at, "number");
});

test("count_tokens answers with an estimate and does not use up a reply", async (t) => {
  const { fake, client } = await setup(t, { replies: [{ text: "still here" }] });
  const small = await client.messages.countTokens({ model: "claude-test", messages: [{ role: "user", content: "hi" }] });
  const large = await client.messages.countTokens({ model: "claude-test", messages: [{ role: "user", content: "hi ".repeat(1000) }] });
  assert.ok(small.input_tokens > 0);
  assert.ok(large.input_tokens > small.input_tokens * 10, "the estimate grows with the input");
  assert.equal(fake.requests.length, 0);
  const message = await client.messages.create(base);
  assert.deepEqual(message.content, [{ type: "text", text: "still here" }]);
});

test("with apiKeys, a request with another key (or none) is refused 401 as the API refuses it", async (t) => {
  const { fake, client } = await setup(t, { apiKeys: ["test-key"], replies: [{ text: "taken" }] });
  const wrong = new Anthropic({ apiKey: "wrong-key", baseURL: fake.url, maxRetries: 0 });
  const refused = await wrong.messages.countTokens({ model: "claude-test", messages: [{ role: "user", content: "hi" }] }).then(
    () => assert.fail("expected a refusal"),
    (error: unknown) => error as APIError,
  );
  assert.equal(refused.status, 401);
  assert.match(refused.message, /invalid x-api-key/);
  const bearer = new Anthropic({ apiKey: null, authToken: "test-key", baseURL: fake.url, maxRetries: 0 });
  assert.ok((await bearer.messages.countTokens({ model: "claude-test", messages: [{ role: "user", content: "hi" }] })).input_tokens > 0);
  assert.deepEqual((await client.messages.create(base)).content, [{ type: "text", text: "taken" }]);
  assert.equal(fake.requests.length, 1, "a refused request is not recorded and takes no reply");
});

test("an http-error reply is a real API error response, with retry-after when scripted", async (t) => {
  const { client } = await setup(t, { replies: [{ kind: "http-error", status: 429, retryAfter: 7 }, { kind: "http-error", status: 529, message: "busy" }] });
  const limited = await client.messages.create(base).then(
    () => assert.fail("expected an error"),
    (e: unknown) => e,
  );
  assert.ok(limited instanceof RateLimitError);
  assert.equal(limited.status, 429);
  assert.equal(limited.type, "rate_limit_error");
  assert.equal(limited.headers.get("retry-after"), "7");
  const overloaded = await client.messages.create({ ...base, stream: true }).then(
    () => assert.fail("expected an error"),
    (e: unknown) => e,
  );
  assert.ok(overloaded instanceof APIError);
  assert.equal(overloaded.status, 529);
  assert.equal(overloaded.type, "overloaded_error");
  assert.equal(overloaded.apiMessage, "busy");
});

test("a stream-error reply sends its text, then an error event the SDK raises", async (t) => {
  const { client } = await setup(t, { replies: [{ kind: "stream-error", afterText: "so far", errorType: "overloaded_error", message: "Overloaded" }] });
  const stream = await client.messages.create({ ...base, stream: true });
  const texts: string[] = [];
  const error = await (async () => {
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") texts.push(event.delta.text);
    }
  })().then(
    () => assert.fail("expected the error event to raise"),
    (e: unknown) => e,
  );
  assert.deepEqual(texts, ["so far"]);
  assert.ok(error instanceof APIError);
  assert.equal(error.type, "overloaded_error");
  assert.equal(error.apiMessage, "Overloaded");
});

test("a request with no scripted reply left gets a 500 that says so and names the request", async (t) => {
  const { client } = await setup(t, { replies: [{ text: "only one" }] });
  await client.messages.create(base);
  const error = await client.messages.create(base).then(
    () => assert.fail("expected an error"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof APIError);
  assert.equal(error.status, 500);
  assert.match(error.apiMessage ?? "", /no scripted reply left for request 2/);
});

test("respond is consulted first with the request and its index; undefined falls back to the queue", async (t) => {
  const seen: number[] = [];
  const { fake, client } = await setup(t, {
    replies: [{ text: "from the queue" }],
    respond: (request, index) => {
      seen.push(index);
      return request.body.messages[0].content === "echo" ? { text: `echo #${index}` } : undefined;
    },
  });
  const echo = await client.messages.create({ ...base, messages: [{ role: "user", content: "echo" }] });
  const queued = await client.messages.create(base);
  assert.deepEqual(echo.content, [{ type: "text", text: "echo #0" }]);
  assert.deepEqual(queued.content, [{ type: "text", text: "from the queue" }]);
  assert.deepEqual(seen, [0, 1]);
  fake.push(...toolThenText("Bash", { command: "ls" }, "done"));
  const first = await client.messages.create(base);
  const second = await client.messages.create(base);
  assert.equal(first.stop_reason, "tool_use");
  assert.deepEqual(first.content.map((b) => (b.type === "tool_use" ? [b.name, b.input] : b.type)), [["Bash", { command: "ls" }]]);
  assert.deepEqual(second.content, [{ type: "text", text: "done" }]);
});

test("waitForRequests resolves once enough requests arrived and rejects on timeout naming the counts", async (t) => {
  const { fake, client } = await setup(t, { replies: [textInWords("one two"), { text: "three" }] });
  const waiting = fake.waitForRequests(2);
  await client.messages.create(base);
  await client.messages.create(base);
  const requests = await waiting;
  assert.equal(requests.length, 2);
  assert.deepEqual(await fake.waitForRequests(1), [requests[0]]);
  await assert.rejects(fake.waitForRequests(3, 50), /waited 50 ms for 3 requests, got 2/);
});

test("with keepRequests false nothing is kept, yet requests are numbered, waited for and given the input token estimate", async (t) => {
  const indexes: number[] = [];
  const { fake, client } = await setup(t, {
    keepRequests: false,
    respond: (_request, index) => {
      indexes.push(index);
      return { text: `reply ${index}` };
    },
  });
  const waiting = fake.waitForRequests(2);
  const first = await client.messages.create(base);
  await client.messages.create(base);
  assert.deepEqual(await waiting, []);
  assert.deepEqual(indexes, [0, 1]);
  assert.equal(fake.requests.length, 0);
  assert.deepEqual(first.content, [{ type: "text", text: "reply 0" }]);
  // The estimate is the same whether or not the request was kept: about a token per 4 characters.
  assert.ok(first.usage.input_tokens > 0);
  await assert.rejects(fake.waitForRequests(3, 50), /waited 50 ms for 3 requests, got 2/);
});

test("unknown routes, malformed bodies and missing fields get JSON errors like the real API's", async (t) => {
  const { fake } = await setup(t, { replies: [{ text: "unused" }] });
  const post = (path: string, body: string) =>
    fetch(`${fake.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const notFound = await fetch(`${fake.url}/v1/models`);
  assert.equal(notFound.status, 404);
  assert.equal((await notFound.json()).error.type, "not_found_error");
  const badJson = await post("/v1/messages", "{nope");
  assert.equal(badJson.status, 400);
  assert.match((await badJson.json()).error.message, /not valid JSON/);
  const noMax = await post("/v1/messages", JSON.stringify({ model: "m", messages: [] }));
  assert.equal(noMax.status, 400);
  const body = await noMax.json();
  assert.equal(body.type, "error");
  assert.equal(body.error.type, "invalid_request_error");
  assert.match(body.error.message, /max_tokens/);
  // The scripted reply is still there for a valid request.
  const ok = await post("/v1/messages", JSON.stringify(base));
  assert.equal((await ok.json()).content[0].text, "unused");
});

test("textChunks are written as they are produced, not collected first", async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  async function* chunks() {
    yield "first";
    await gate;
    yield "second";
  }
  const { client } = await setup(t, { replies: [{ textChunks: chunks }] });
  const stream = await client.messages.create({ ...base, stream: true });
  const texts: string[] = [];
  for await (const event of stream) {
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
      texts.push(event.delta.text);
      if (texts.length === 1) release(); // "second" cannot exist before "first" was received
    }
  }
  assert.deepEqual(texts, ["first", "second"]);
});

test("delayMs spaces the events out", async (t) => {
  const { client } = await setup(t, { replies: [{ text: ["a", "b", "c", "d"], delayMs: 25 }] });
  const started = performance.now();
  await client.messages.stream(base).finalMessage();
  // message_start, block start, ping, 4 deltas, block stop, message_delta, message_stop: 10 pauses.
  assert.ok(performance.now() - started >= 200, "at least most of the scripted pauses were taken");
});

test("close() cuts a stream that is still open and resolves", async (t) => {
  const { fake, client } = await setup(t, { replies: [{ text: ["never ", "finished"], hold: new Promise(() => {}) }] });
  const stream = await client.messages.create({ ...base, stream: true });
  let received = "";
  const reading = (async () => {
    for await (const event of stream) {
      if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
        received += event.delta.text;
        if (received === "never finished") await fake.close();
      }
    }
  })();
  await assert.rejects(reading, "the cut stream fails instead of ending as if complete");
  assert.equal(received, "never finished");
});

test("50,000 text deltas arrive complete and in order", async (t) => {
  const count = 50_000;
  const chunks = Array.from({ length: count }, (_, i) => `${i} `);
  const { client } = await setup(t, { replies: [{ text: chunks }] });
  const started = performance.now();
  const stream = await client.messages.create({ ...base, stream: true });
  let n = 0;
  let inOrder = true;
  for await (const event of stream) {
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") {
      if (event.delta.text !== chunks[n]) inOrder = false;
      n++;
    }
  }
  assert.equal(n, count);
  assert.ok(inOrder);
  t.diagnostic(`${count} deltas through the SDK in ${Math.round(performance.now() - started)} ms`);
});

test("a thinking reply streams a signed thinking block before the text, in both stream modes", async (t) => {
  const { client } = await setup(t, { replies: [{ thinking: ["Plan: ", "greet."], text: "Hi!" }, { thinking: "Plan: greet.", text: "Hi!" }] });
  const thinking: string[] = [];
  const streamed = await client.messages.stream(base).on("thinking", (delta) => thinking.push(delta)).finalMessage();
  assert.deepEqual(thinking, ["Plan: ", "greet."]);
  const [block, text] = streamed.content;
  assert.equal(block.type, "thinking");
  assert.ok(block.type === "thinking" && block.thinking === "Plan: greet." && block.signature.length > 0);
  assert.deepEqual(text, { type: "text", text: "Hi!" });
  const whole = await client.messages.create(base);
  assert.deepEqual(whole.content, streamed.content, "the same thinking gets the same signature");
});

test("with a route, side requests get the side reply and leave the scripted replies to the main conversation", async (t) => {
  const { fake, client } = await setup(t, {
    replies: [{ text: "main one" }, { text: "main two" }],
    route: claudeCodeRoute,
    sideReply: (req) => ({ text: `side for ${req.body.model}` }),
  });
  const tools = [{ name: "Bash", description: "run", input_schema: { type: "object" as const, properties: {} } }];
  const main1 = await client.messages.create({ ...base, tools });
  const title = await client.messages.create({ ...base, model: "claude-haiku-test", system: "Generate a title" });
  const main2 = await client.messages.create({ ...base, tools });
  assert.deepEqual(main1.content, [{ type: "text", text: "main one" }]);
  assert.deepEqual(title.content, [{ type: "text", text: "side for claude-haiku-test" }]);
  assert.deepEqual(main2.content, [{ type: "text", text: "main two" }]);
  assert.equal(fake.requests.length, 2);
  assert.equal(fake.sideRequests.length, 1);
  assert.equal(fake.sideRequests[0].body.system, "Generate a title");
});

test("without a sideReply, side requests are answered with a short text in either stream mode", async (t) => {
  const { fake, client } = await setup(t, { route: () => "side" });
  const plain = await client.messages.create(base);
  assert.deepEqual(plain.content, [{ type: "text", text: "OK" }]);
  const streamed = await client.messages.stream(base).finalText();
  assert.equal(streamed, "OK");
  assert.equal(fake.requests.length, 0);
  assert.equal(fake.sideRequests.length, 2);
});

test("a GET or HEAD probe of the base URL answers 200", async (t) => {
  const { fake } = await setup(t);
  assert.equal((await fetch(`${fake.url}/`)).status, 200);
  assert.equal((await fetch(`${fake.url}/`, { method: "HEAD" })).status, 200);
  assert.equal(fake.requests.length, 0);
});

test("a web search answer streams server_tool_use, web_search_tool_result and cited text that the SDK assembles as the API's", async (t) => {
  const answer = webSearchAnswer({
    query: "node 24",
    results: [{ title: "Node.js 24", url: "https://nodejs.org/en/blog/release/v24.0.0", pageAge: "May 6, 2025" }],
    text: "Node.js 24 came out in May 2025.",
    cites: [0],
  });
  const { client } = await setup(t, { replies: [answer, answer, webSearchAnswer({ query: "again", errorCode: "max_uses_exceeded", text: "No more searches." })] });
  const request = { ...base, tools: [{ type: "web_search_20250305" as const, name: "web_search" as const, max_uses: 8 }] };
  const streamed = await client.messages.stream(request).finalMessage();
  const whole = await client.messages.create(request);
  for (const message of [streamed, whole]) {
    const [use, result, text] = message.content;
    assert.equal(message.content.length, 3);
    assert.equal(message.stop_reason, "end_turn");
    assert.ok(use?.type === "server_tool_use" && use.name === "web_search");
    assert.deepEqual(use.input, { query: "node 24" });
    assert.ok(result?.type === "web_search_tool_result" && Array.isArray(result.content));
    assert.equal(result.tool_use_id, use.id);
    assert.deepEqual(result.content.map((r) => [r.type, r.title, r.url, r.page_age]), [["web_search_result", "Node.js 24", "https://nodejs.org/en/blog/release/v24.0.0", "May 6, 2025"]]);
    assert.ok(text?.type === "text");
    assert.equal(text.text, "Node.js 24 came out in May 2025.");
    assert.deepEqual(text.citations?.map((c) => c.type === "web_search_result_location" && [c.url, c.cited_text]), [["https://nodejs.org/en/blog/release/v24.0.0", "Node.js 24 came out in May 2025."]]);
  }
  const failed = await client.messages.stream(request).finalMessage();
  const result = failed.content[1];
  assert.ok(result?.type === "web_search_tool_result" && !Array.isArray(result.content));
  assert.deepEqual(result.content, { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" });
});
