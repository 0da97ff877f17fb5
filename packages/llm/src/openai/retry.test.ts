// Failures and cancellation of the OpenAI-compatible provider: the same retry policy and error
// values as the Anthropic provider, against the fake chat-completions server.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test, type TestContext } from "node:test";
import { type FakeOpenAIReply, startFakeOpenAI } from "@harness/test-utils";
import { createOpenAIProvider, type OpenAIProviderOptions } from "./provider.ts";
import { collect, lastDone, retries, textOf } from "../test-support.ts";
import type { ModelRequest } from "../types.ts";

async function setup(t: TestContext, replies: FakeOpenAIReply[], options: OpenAIProviderOptions = {}) {
  const fake = await startFakeOpenAI({ replies });
  t.after(() => fake.close());
  const provider = createOpenAIProvider({ apiKey: "sk-test", baseURL: fake.url, retryBaseMs: 1, ...options }, {});
  return { fake, provider };
}

const ask = (signal?: AbortSignal): ModelRequest => ({
  model: "gpt-test",
  messages: [{ role: "user", content: "hello" }],
  ...(signal && { signal }),
});

test("a 429 is retried after the server's retry-after, announced by a retry event", async (t) => {
  const { fake, provider } = await setup(t, [{ kind: "http-error", status: 429, retryAfter: 1, message: "Slow down" }, { text: "made it" }]);
  const events = await collect(provider.stream(ask()));
  const [retry] = retries(events);
  assert.equal(retries(events).length, 1);
  assert.equal(retry.attempt, 1);
  assert.equal(retry.delayMs, 1000, "retry-after: 1 means one second");
  assert.equal(retry.reason, "OpenAI API error 429 (rate_limit_exceeded): Slow down");
  assert.equal(textOf(events), "made it");
  assert.equal(lastDone(events).stopReason, "end_turn");
  const [first, second] = fake.requests;
  assert.ok(second.at - first.at >= 900, `the second request waited for retry-after (${second.at - first.at} ms)`);
});

test("two 500s then a success: two retry events, then the reply", async (t) => {
  const { fake, provider } = await setup(t, [{ kind: "http-error", status: 500 }, { kind: "http-error", status: 502 }, { text: "third time lucky" }]);
  const events = await collect(provider.stream(ask()));
  assert.deepEqual(retries(events).map((r) => r.attempt), [1, 2]);
  assert.match(retries(events)[0].reason, /^OpenAI API error 500 \(server_error\)/);
  assert.match(retries(events)[1].reason, /^OpenAI API error 502/);
  assert.equal(textOf(events), "third time lucky");
  assert.deepEqual(fake.requests.map((r) => r.headers["x-stainless-retry-count"]), ["0", "1", "2"]);
});

test("when every attempt fails the stream ends with an error naming the status and the attempts", async (t) => {
  const { fake, provider } = await setup(t, [1, 2, 3].map((): FakeOpenAIReply => ({ kind: "http-error", status: 503, message: "busy" })), { maxRetries: 2 });
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 2);
  const done = lastDone(events);
  assert.equal(done.stopReason, "error");
  assert.equal(done.errorMessage, "OpenAI API error 503 (server_error): busy — gave up after 3 attempts");
  assert.deepEqual(done.message, { role: "assistant", content: [] });
  assert.equal(fake.requests.length, 3);
});

for (const status of [400, 401, 404]) {
  test(`a ${status} is not retried and its error message comes through`, async (t) => {
    const { fake, provider } = await setup(t, [{ kind: "http-error", status, message: `explained ${status}` }, { text: "never" }]);
    const events = await collect(provider.stream(ask()));
    assert.equal(retries(events).length, 0);
    const done = lastDone(events);
    assert.equal(done.stopReason, "error");
    // A 401 also says which variable gives the key (hints.ts).
    assert.match(done.errorMessage ?? "", new RegExp(`^OpenAI API error ${status} \\(\\w+\\): explained ${status}(?: — .*OPENAI_API_KEY.*)?$`));
    assert.equal(fake.requests.length, 1);
  });
}

test("the provider's name labels its errors", async (t) => {
  const { provider } = await setup(t, [{ kind: "http-error", status: 404, message: "model 'qwen9' not found" }], { name: "ollama" });
  assert.equal(lastDone(await collect(provider.stream(ask()))).errorMessage, "Ollama API error 404 (model_not_found): model 'qwen9' not found");
});

test("an error payload in the stream before any output is retried", async (t) => {
  const { fake, provider } = await setup(t, [{ kind: "stream-error", message: "upstream overloaded" }, { text: "recovered" }]);
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 1);
  assert.equal(retries(events)[0].reason, "OpenAI API stream error (server_error): upstream overloaded");
  assert.equal(textOf(events), "recovered");
  assert.equal(fake.requests.length, 2);
});

test("a connection cut before any output is retried", async (t) => {
  const { fake, provider } = await setup(t, [{ kind: "stream-break" }, { text: "second try" }]);
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 1);
  assert.equal(textOf(events), "second try");
  assert.equal(lastDone(events).stopReason, "end_turn");
  assert.equal(fake.requests.length, 2);
});

test("an error payload after partial text ends the stream with an error and the partial message", async (t) => {
  const { fake, provider } = await setup(t, [{ kind: "stream-error", afterText: "Half an ans", message: "overloaded" }, { text: "unused" }]);
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 0, "output was already shown, so the attempt is not repeated");
  const done = lastDone(events);
  assert.equal(done.stopReason, "error");
  assert.equal(done.errorMessage, "model stream broke after partial output: OpenAI API stream error (server_error): overloaded");
  assert.deepEqual(done.message, { role: "assistant", content: [{ type: "text", text: "Half an ans" }] });
  assert.equal(fake.requests.length, 1);
});

test("a connection cut after partial text ends with an error and the partial message", async (t) => {
  const { provider } = await setup(t, [{ kind: "stream-break", afterText: "some words" }]);
  const events = await collect(provider.stream(ask()));
  const done = lastDone(events);
  assert.equal(done.stopReason, "error");
  assert.match(done.errorMessage ?? "", /^model stream broke after partial output: /);
  assert.deepEqual(done.message.content, [{ type: "text", text: "some words" }]);
});

test("a stream that ends with [DONE] but no finish_reason ends the reply there, its tool calls with it; an empty one is retried", async (t) => {
  const call = { name: "Read", arguments: { file_path: "/a" } };
  const { fake, provider } = await setup(t, [
    { text: "reading", toolCalls: [call], finishReason: null },
    { text: "", finishReason: null },
    { text: "done", finishReason: null },
  ]);
  const first = await collect(provider.stream(ask()));
  const done = lastDone(first);
  assert.equal(done.stopReason, "tool_use");
  assert.equal(retries(first).length, 0);
  assert.deepEqual(done.message.content, [
    { type: "text", text: "reading" },
    { type: "tool_use", id: (done.message.content as { id?: string }[])[1]?.id, name: "Read", input: { file_path: "/a" } },
  ]);
  const second = await collect(provider.stream(ask()));
  assert.equal(retries(second).length, 1, "a reply with nothing in it is not a reply");
  assert.equal(textOf(second), "done");
  assert.equal(lastDone(second).stopReason, "end_turn");
  assert.equal(fake.requests.length, 3);
});

test("a server that cannot be reached is retried, then reported as a connection error", async () => {
  const port = await closedPort();
  const provider = createOpenAIProvider({ apiKey: "k", baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 1, retryBaseMs: 1 }, {});
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 1);
  const done = lastDone(events);
  assert.equal(done.stopReason, "error");
  assert.match(done.errorMessage ?? "", new RegExp(`could not connect to the OpenAI API at http://127.0.0.1:${port}/v1.*gave up after 2 attempts`));
});

test("abort mid-stream ends the stream promptly as aborted, keeping the partial text", async (t) => {
  const { provider } = await setup(t, [{ text: ["partial ", "answer"], hold: new Promise(() => {}) }]);
  const controller = new AbortController();
  const events = await collect(provider.stream(ask(controller.signal)), (e) => {
    if (e.type === "text-delta" && e.text === "answer") controller.abort();
  });
  // The reply is held open forever, so ending at all shows the abort cut it short.
  const done = lastDone(events);
  assert.equal(done.stopReason, "aborted");
  assert.equal(done.errorMessage, undefined);
  assert.deepEqual(done.message.content, [{ type: "text", text: "partial answer" }]);
});

test("abort during a retry wait ends the stream at once without another request", async (t) => {
  const { fake, provider } = await setup(t, [{ kind: "http-error", status: 429, retryAfter: 30 }, { text: "too late" }]);
  const controller = new AbortController();
  let abortedAt = 0;
  const events = await collect(provider.stream(ask(controller.signal)), (e) => {
    if (e.type === "retry") {
      abortedAt = performance.now();
      controller.abort();
    }
  });
  const elapsed = performance.now() - abortedAt;
  assert.equal(retries(events)[0].delayMs, 30_000);
  assert.equal(lastDone(events).stopReason, "aborted");
  assert.ok(elapsed < 5000, `ended ${Math.round(elapsed)} ms after the abort, not after the 30 s wait`);
  assert.equal(fake.requests.length, 1);
});

test("a signal that is already aborted ends the stream without a request", async (t) => {
  const { fake, provider } = await setup(t, [{ text: "never" }]);
  const events = await collect(provider.stream(ask(AbortSignal.abort())));
  assert.deepEqual(events.map((e) => e.type), ["done"]);
  assert.equal(lastDone(events).stopReason, "aborted");
  assert.equal(fake.requests.length, 0);
});

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address && typeof address === "object");
  return address.port;
}

test("a stream that sends only keep-alive comments is working, not silent: it is not given up on", async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  setTimeout(() => release(), 900);
  const { fake, provider } = await setup(t, [{ text: "", hold, keepAliveMs: 100, toolCalls: [{ name: "Write", arguments: { file_path: "big.txt" } }] }], { streamIdleMs: 300 });
  const events = await collect(provider.stream(ask()));
  assert.deepEqual(events.filter((e) => e.type === "retry"), []);
  assert.equal(fake.requests.length, 1);
});
