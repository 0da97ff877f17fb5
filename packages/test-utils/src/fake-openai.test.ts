// The fake chat-completions server on the wire: what a client reads from it byte for byte, what it
// records, and how it fails. (The `openai` SDK against it is exercised in packages/llm.)
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { startFakeOpenAI } from "./fake-openai.ts";
import type { FakeOpenAIOptions } from "./fake-openai-types.ts";

async function setup(t: TestContext, options: FakeOpenAIOptions) {
  const fake = await startFakeOpenAI(options);
  t.after(() => fake.close());
  return fake;
}

const body = (extra: Record<string, unknown> = {}) => ({ model: "gpt-test", messages: [{ role: "user", content: "hi" }], stream: true, ...extra });

function post(url: string, value: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-test", ...headers },
    body: JSON.stringify(value),
  });
}

/** The SSE data payloads of a response, in order; "[DONE]" stays a string. */
async function sseData(response: Response): Promise<unknown[]> {
  const text = await response.text();
  assert.ok(text.endsWith("\n\n"), "every event ends with a blank line");
  return text
    .split("\n\n")
    .filter((event) => event !== "")
    .map((event) => {
      assert.ok(event.startsWith("data: "), `an SSE data line: ${event.slice(0, 60)}`);
      const data = event.slice("data: ".length);
      return data === "[DONE]" ? data : JSON.parse(data);
    });
}

type Chunk = { object: string; id: string; model: string; choices: { index: number; delta: Record<string, unknown>; finish_reason: string | null }[]; usage?: unknown };

test("a text reply streams chat.completion.chunk events, a finish_reason, then [DONE]", async (t) => {
  const fake = await setup(t, { replies: [{ text: ["Hel", "lo"] }] });
  const response = await post(fake.url, body());
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
  const data = await sseData(response);
  assert.equal(data.at(-1), "[DONE]");
  const chunks = data.slice(0, -1) as Chunk[];
  assert.ok(chunks.every((c) => c.object === "chat.completion.chunk" && c.model === "gpt-test" && c.id === chunks[0].id));
  assert.ok(chunks.every((c) => !("usage" in c)), "no usage field unless include_usage was asked for");
  assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "" });
  assert.deepEqual(chunks.slice(1, 3).map((c) => c.choices[0].delta.content), ["Hel", "lo"]);
  assert.deepEqual(chunks.at(-1)?.choices[0], { index: 0, delta: {}, logprobs: null, finish_reason: "stop" });
});

test("with include_usage every chunk has usage:null and a last chunk without choices carries the usage", async (t) => {
  const fake = await setup(t, { replies: [{ text: "hi", usage: { prompt_tokens: 20, completion_tokens: 3, cached_tokens: 8 } }] });
  const data = await sseData(await post(fake.url, body({ stream_options: { include_usage: true } })));
  const chunks = data.slice(0, -1) as Chunk[];
  const last = chunks.at(-1);
  assert.deepEqual(last?.choices, []);
  assert.deepEqual(last?.usage, {
    prompt_tokens: 20,
    completion_tokens: 3,
    total_tokens: 23,
    prompt_tokens_details: { cached_tokens: 8 },
    completion_tokens_details: { reasoning_tokens: 0 },
  });
  assert.ok(chunks.slice(0, -1).every((c) => c.usage === null));
});

test("tool calls stream by index: id and name first, then the arguments in pieces", async (t) => {
  const fake = await setup(t, {
    replies: [{ toolCalls: [{ id: "call_1", name: "glob", arguments: { pattern: "*.ts" }, chunks: 3 }, { name: "grep", arguments: { q: "x" }, chunks: 1 }] }],
  });
  const chunks = (await sseData(await post(fake.url, body()))).slice(0, -1) as Chunk[];
  type Call = { index: number; id?: string; type?: string; function: { name?: string; arguments: string } };
  const calls = chunks.flatMap((c) => (c.choices[0]?.delta.tool_calls as Call[] | undefined) ?? []);
  assert.deepEqual(calls[0], { index: 0, id: "call_1", type: "function", function: { name: "glob", arguments: "" } });
  const first = calls.filter((c) => c.index === 0).slice(1);
  assert.equal(first.length, 3);
  assert.ok(first.every((c) => c.id === undefined && c.function.name === undefined));
  assert.equal(first.map((c) => c.function.arguments).join(""), '{"pattern":"*.ts"}');
  const second = calls.filter((c) => c.index === 1);
  assert.match(second[0].id ?? "", /^call_[0-9a-f]+$/);
  assert.equal(second[0].function.name, "grep");
  assert.equal(second.map((c) => c.function.arguments).join(""), '{"q":"x"}');
  assert.equal(chunks.at(-1)?.choices[0].finish_reason, "tool_calls");
});

test("reasoning streams as reasoning_content deltas before the text", async (t) => {
  const fake = await setup(t, { replies: [{ reasoning: ["hm", "m"], text: "ok" }] });
  const chunks = (await sseData(await post(fake.url, body()))).slice(0, -1) as Chunk[];
  assert.deepEqual(chunks.slice(1, 4).map((c) => c.choices[0].delta), [{ reasoning_content: "hm" }, { reasoning_content: "m" }, { content: "ok" }]);
});

test("an http-error reply is a JSON error body with the status and retry-after", async (t) => {
  const fake = await setup(t, { replies: [{ kind: "http-error", status: 429, retryAfter: 2 }, { kind: "http-error", status: 500, message: "boom" }] });
  const limited = await post(fake.url, body());
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("retry-after"), "2");
  assert.deepEqual(await limited.json(), {
    error: { message: "Rate limit reached for requests. Please try again later.", type: "requests", param: null, code: "rate_limit_exceeded" },
  });
  const failed = await post(fake.url, body());
  assert.equal(failed.status, 500);
  assert.deepEqual(await failed.json(), { error: { message: "boom", type: "server_error", param: null, code: null } });
});

test("a stream-error reply sends an error payload mid-stream and no [DONE]", async (t) => {
  const fake = await setup(t, { replies: [{ kind: "stream-error", afterText: "par", message: "overloaded" }] });
  const data = await sseData(await post(fake.url, body()));
  assert.equal((data[1] as Chunk).choices[0].delta.content, "par");
  assert.deepEqual(data.at(-1), { error: { message: "overloaded", type: "server_error", param: null, code: null } });
  assert.ok(!data.includes("[DONE]"));
});

test("a stream-break reply cuts the connection after the text it was given", async (t) => {
  const fake = await setup(t, { replies: [{ kind: "stream-break", afterText: "cut he" }] });
  const response = await post(fake.url, body());
  assert.equal(response.status, 200);
  await assert.rejects(response.text(), "reading the body fails when the connection goes");
});

test("stream:false gets one chat.completion with the text and tool calls", async (t) => {
  const fake = await setup(t, { replies: [{ text: "Sure.", toolCalls: [{ id: "call_9", name: "ls", arguments: { dir: "." } }] }] });
  const response = await post(fake.url, body({ stream: false }));
  const completion = (await response.json()) as { object: string; choices: unknown[]; usage: { total_tokens: number } };
  assert.equal(completion.object, "chat.completion");
  assert.deepEqual(completion.choices, [
    {
      index: 0,
      message: { role: "assistant", content: "Sure.", refusal: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "ls", arguments: '{"dir":"."}' } }] },
      logprobs: null,
      finish_reason: "tool_calls",
    },
  ]);
  assert.ok(completion.usage.total_tokens > 0);
});

test("requests are recorded with path, headers and body; /v1 and a query string are optional", async (t) => {
  const fake = await setup(t, { replies: [{ text: "a" }, { text: "b" }] });
  assert.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  await (await post(fake.url, body({ temperature: 0 }), { "x-extra": "1" })).text();
  const root = fake.url.replace(/\/v1$/, "");
  await (await fetch(`${root}/chat/completions?api-version=1`, { method: "POST", body: JSON.stringify(body()) })).text();
  const [first, second] = await fake.waitForRequests(2);
  assert.equal(first.path, "/v1/chat/completions");
  assert.equal(first.headers.authorization, "Bearer sk-test");
  assert.equal(first.headers["x-extra"], "1");
  assert.deepEqual(first.body, body({ temperature: 0 }));
  assert.equal(second.path, "/chat/completions");
  assert.equal(second.url, "/chat/completions?api-version=1");
});

test("respond is asked first; the queue answers when it returns undefined", async (t) => {
  const fake = await setup(t, {
    replies: [{ text: "from the queue" }],
    respond: (request, index) => (index === 0 ? { text: `echo ${request.body.model}` } : undefined),
  });
  const text = async () =>
    ((await sseData(await post(fake.url, body()))) as Chunk[])
      .slice(1, -2)
      .map((c) => c.choices[0].delta.content)
      .join("");
  assert.equal(await text(), "echo gpt-test");
  assert.equal(await text(), "from the queue");
});

test("an under-scripted test gets a 500 naming the request; bad bodies and routes get 400 and 404", async (t) => {
  const fake = await setup(t, {});
  const missing = await post(fake.url, body());
  assert.equal(missing.status, 500);
  assert.match(((await missing.json()) as { error: { message: string } }).error.message, /no scripted reply left for request 1/);
  const invalid = await post(fake.url, { model: "m", messages: [] });
  assert.equal(invalid.status, 400);
  assert.match(((await invalid.json()) as { error: { message: string } }).error.message, /messages/);
  const unknown = await fetch(`${fake.url}/embeddings`);
  assert.equal(unknown.status, 404);
  await unknown.body?.cancel();
});

test("close() ends a stream that is still open and rejects pending waits", async () => {
  const fake = await startFakeOpenAI({ replies: [{ text: "held", hold: new Promise(() => {}) }] });
  const response = await post(fake.url, body());
  const reading = assert.rejects(response.text());
  const waiting = assert.rejects(fake.waitForRequests(5), /closed while waiting for 5 requests/);
  await fake.close();
  await reading;
  await waiting;
});

test("GET /models lists the models; with apiKeys, another key is refused 401 as the API refuses it", async (t) => {
  const fake = await startFakeOpenAI({ apiKeys: ["sk-right-key-0001"], models: ["gpt-a", "gpt-b"] });
  t.after(() => fake.close());
  const list = (key: string) => fetch(`${fake.url}/models`, { headers: { authorization: `Bearer ${key}` } });
  const right = await list("sk-right-key-0001");
  assert.equal(right.status, 200);
  assert.deepEqual(((await right.json()) as { data: { id: string }[] }).data.map((model) => model.id), ["gpt-a", "gpt-b"]);
  const wrong = await list("sk-wrong-key-0002");
  assert.equal(wrong.status, 401);
  assert.deepEqual(await wrong.json(), { error: { message: "Incorrect API key provided: sk-***0002.", type: "invalid_request_error", param: null, code: "invalid_api_key" } });
});
