// Failures and cancellation: which failures are retried (and how the caller hears of it), which end
// the stream as error values, and how quickly an abort ends it.
import assert from "node:assert/strict";
import http from "node:http";
import { createServer } from "node:net";
import { test, type TestContext } from "node:test";
import { type FakeReply, startFakeAnthropic } from "@harness/test-utils";
import { type AnthropicProviderOptions, createAnthropicProvider } from "./provider.ts";
import type { ModelEvent, ModelRequest } from "../types.ts";

async function setup(t: TestContext, replies: FakeReply[], options: AnthropicProviderOptions = {}) {
  const fake = await startFakeAnthropic({ replies });
  t.after(() => fake.close());
  const provider = createAnthropicProvider({ apiKey: "test-key", baseURL: fake.url, retryBaseMs: 1, ...options }, {});
  return { fake, provider };
}

async function collect(events: AsyncIterable<ModelEvent>, onEvent?: (e: ModelEvent) => void): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) {
    out.push(event);
    onEvent?.(event);
  }
  return out;
}

type Done = Extract<ModelEvent, { type: "done" }>;
type Retry = Extract<ModelEvent, { type: "retry" }>;

function lastDone(events: ModelEvent[]): Done {
  const last = events.at(-1);
  assert.equal(last?.type, "done", "the stream ends with a done event");
  return last as Done;
}

const retries = (events: ModelEvent[]) => events.filter((e): e is Retry => e.type === "retry");
const text = (events: ModelEvent[]) => events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");

const ask = (signal?: AbortSignal): ModelRequest => ({
  model: "claude-test",
  messages: [{ role: "user", content: "hello" }],
  ...(signal && { signal }),
});

test("a 429 is retried after the server's retry-after, announced by a retry event", async (t) => {
  const { fake, provider } = await setup(t, [
    { kind: "http-error", status: 429, retryAfter: 1, message: "Slow down" },
    { text: "made it" },
  ]);
  const events = await collect(provider.stream(ask()));
  const [retry] = retries(events);
  assert.equal(retries(events).length, 1);
  assert.equal(retry.attempt, 1);
  assert.equal(retry.delayMs, 1000, "retry-after: 1 means one second");
  assert.match(retry.reason, /429/);
  assert.match(retry.reason, /rate_limit_error/);
  assert.match(retry.reason, /Slow down/);
  assert.ok(events.indexOf(retry) < events.findIndex((e) => e.type === "text-delta"), "the retry is announced before the output");
  assert.equal(text(events), "made it");
  assert.equal(lastDone(events).stopReason, "end_turn");
  const [first, second] = fake.requests;
  assert.ok(second.at - first.at >= 900, `the second request waited for retry-after (${second.at - first.at} ms)`);
});

test("two 500s then a success: two retry events with growing attempt numbers, the most there can be and the status, then the reply", async (t) => {
  const { fake, provider } = await setup(t, [
    { kind: "http-error", status: 500 },
    { kind: "http-error", status: 500 },
    { text: "third time lucky" },
  ]);
  const events = await collect(provider.stream(ask()));
  assert.deepEqual(retries(events).map((r) => [r.attempt, r.maxAttempts, r.code]), [[1, 5, "500"], [2, 5, "500"]]);
  assert.ok(retries(events).every((r) => /500 \(api_error\)/.test(r.reason)));
  assert.equal(text(events), "third time lucky");
  assert.equal(lastDone(events).stopReason, "end_turn");
  assert.equal(fake.requests.length, 3);
  assert.deepEqual(
    fake.requests.map((r) => r.headers["x-stainless-retry-count"]),
    ["0", "1", "2"],
  );
});

test("when every attempt fails the stream ends with an error naming the status and the attempts", async (t) => {
  const { fake, provider } = await setup(
    t,
    [1, 2, 3].map((): FakeReply => ({ kind: "http-error", status: 529 })),
    { maxRetries: 2 },
  );
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 2);
  const done = lastDone(events);
  assert.equal(done.stopReason, "error");
  assert.equal(done.errorMessage, "Anthropic API error 529 (overloaded_error): Overloaded — gave up after 3 attempts");
  assert.deepEqual(done.message, { role: "assistant", content: [] });
  assert.equal(fake.requests.length, 3);
});

test("HARNESS_MODEL_RETRIES sets how often a request is retried", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ kind: "http-error", status: 503 }, { kind: "http-error", status: 503 }] });
  t.after(() => fake.close());
  const provider = createAnthropicProvider({ apiKey: "k", baseURL: fake.url }, { HARNESS_MODEL_RETRIES: "1", HARNESS_RETRY_BASE_MS: "1" });
  const done = lastDone(await collect(provider.stream(ask())));
  assert.match(done.errorMessage ?? "", /503.*gave up after 2 attempts/);
  assert.equal(fake.requests.length, 2);
});

for (const status of [400, 401, 403, 404]) {
  test(`a ${status} is not retried and its error message comes through`, async (t) => {
    const { fake, provider } = await setup(t, [{ kind: "http-error", status, message: `explained ${status}` }, { text: "never" }]);
    const events = await collect(provider.stream(ask()));
    assert.equal(retries(events).length, 0);
    const done = lastDone(events);
    assert.equal(done.stopReason, "error");
    assert.match(done.errorMessage ?? "", new RegExp(`^Anthropic API error ${status} \\(\\w+\\): explained ${status}$`));
    assert.equal(fake.requests.length, 1);
  });
}

test("an error event before any output is retried", async (t) => {
  const { fake, provider } = await setup(t, [{ kind: "stream-error", errorType: "overloaded_error" }, { text: "recovered" }]);
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 1);
  assert.match(retries(events)[0].reason, /overloaded_error/);
  assert.equal(text(events), "recovered");
  assert.equal(lastDone(events).stopReason, "end_turn");
  assert.equal(fake.requests.length, 2);
});

test("an error event after partial text ends the stream with an error and the partial message", async (t) => {
  const { fake, provider } = await setup(t, [{ kind: "stream-error", afterText: "Half an ans", message: "Overloaded" }, { text: "unused" }]);
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 0, "output was already shown, so the attempt is not repeated");
  assert.equal(text(events), "Half an ans");
  const done = lastDone(events);
  assert.equal(done.stopReason, "error");
  assert.equal(done.errorMessage, "model stream broke after partial output: Anthropic API stream error (overloaded_error): Overloaded");
  assert.deepEqual(done.message, { role: "assistant", content: [{ type: "text", text: "Half an ans" }] });
  assert.equal(fake.requests.length, 1);
});

test("a connection cut mid-stream after output ends with an error and the partial message", async (t) => {
  const { fake, provider } = await setup(t, [{ text: ["some ", "words"], hold: new Promise(() => {}) }]);
  const events = await collect(provider.stream(ask()), (e) => {
    if (e.type === "text-delta" && e.text === "words") void fake.close();
  });
  const done = lastDone(events);
  assert.equal(done.stopReason, "error");
  assert.match(done.errorMessage ?? "", /^model stream broke after partial output: /);
  assert.deepEqual(done.message.content, [{ type: "text", text: "some words" }]);
});

test("a server that cannot be reached is retried, then reported as a connection error", async (t) => {
  const port = await closedPort();
  const provider = createAnthropicProvider({ apiKey: "k", baseURL: `http://127.0.0.1:${port}`, maxRetries: 1, retryBaseMs: 1 }, {});
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 1);
  const done = lastDone(events);
  assert.equal(done.stopReason, "error");
  assert.match(done.errorMessage ?? "", new RegExp(`could not connect to the Anthropic API at http://127.0.0.1:${port}.*gave up after 2 attempts`));
  t.diagnostic(done.errorMessage ?? "");
});

test("abort mid-stream ends the stream promptly as aborted, keeping the partial text", async (t) => {
  const { provider } = await setup(t, [{ text: ["partial ", "answer"], hold: new Promise(() => {}) }]);
  const controller = new AbortController();
  let abortedAt = 0;
  const events = await collect(provider.stream(ask(controller.signal)), (e) => {
    if (e.type === "text-delta" && e.text === "answer") {
      abortedAt = performance.now();
      controller.abort();
    }
  });
  const elapsed = performance.now() - abortedAt;
  const done = lastDone(events);
  assert.equal(done.stopReason, "aborted");
  assert.equal(done.errorMessage, undefined);
  assert.deepEqual(done.message.content, [{ type: "text", text: "partial answer" }]);
  // The reply is held open forever, so ending at all shows the abort cut it short.
  assert.ok(elapsed < 5000, `ended ${Math.round(elapsed)} ms after the abort`);
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

test("a stream that falls silent before showing anything is given up on after the idle limit, and tried again", async (t) => {
  const never = new Promise<void>(() => {});
  const { fake, provider } = await setup(t, [{ text: "", hold: never }, { text: "made it" }], { streamIdleMs: 300 });
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 1);
  assert.equal(retries(events)[0].reason, "the model stream stalled: no event for 300 ms");
  assert.equal(text(events), "made it");
  assert.equal(fake.requests.length, 2);
});

test("a stream that sends only pings is working, not silent: it is not given up on", async (t) => {
  let release!: () => void;
  const hold = new Promise<void>((resolve) => (release = resolve));
  setTimeout(() => release(), 900);
  // Nothing but pings for three times the idle limit, as while the API prepares a long tool input.
  const { fake, provider } = await setup(t, [{ text: "", hold, keepAliveMs: 100, toolUses: [{ name: "Write", input: { file_path: "big.txt", content: "x" } }] }], { streamIdleMs: 300 });
  const events = await collect(provider.stream(ask()));
  assert.deepEqual(retries(events), []);
  assert.equal(lastDone(events).stopReason, "tool_use");
  assert.equal(fake.requests.length, 1);
});

test("what an attempt given up on used comes with the reply, apart from the reply's own usage: its tokens are billed too", async (t) => {
  const never = new Promise<void>(() => {});
  const { provider } = await setup(
    t,
    [
      { text: "", hold: never, usage: { input_tokens: 1000, output_tokens: 7, cache_read_input_tokens: 200 } },
      { text: "made it", usage: { input_tokens: 1000, output_tokens: 3, cache_read_input_tokens: 200 } },
    ],
    { streamIdleMs: 300 },
  );
  const done = lastDone(await collect(provider.stream(ask())));
  assert.equal(done.stopReason, "end_turn");
  // The reply's own usage measures its request (the context's size); the abandoned attempt's
  // is told apart, to be counted in the totals.
  assert.deepEqual([done.usage.inputTokens, done.usage.outputTokens, done.usage.cacheReadTokens], [1000, 3, 200]);
  assert.deepEqual([done.abandonedUsage?.inputTokens, done.abandonedUsage?.cacheReadTokens], [1000, 200]);
  assert.ok((done.abandonedUsage?.costUsd ?? 0) >= 0);
});

test("thinking shows nothing, so a stream that breaks after only thinking is tried again", async (t) => {
  const never = new Promise<void>(() => {});
  const { fake, provider } = await setup(t, [{ thinking: ["Let me think"], text: "", hold: never }, { text: "answer" }], { streamIdleMs: 300 });
  const events = await collect(provider.stream(ask()));
  assert.equal(retries(events).length, 1);
  assert.equal(text(events), "answer");
  assert.equal(lastDone(events).stopReason, "end_turn");
  assert.equal(fake.requests.length, 2);
});

test("a stream that falls silent after text it showed ends as an error naming the stall", async (t) => {
  const never = new Promise<void>(() => {});
  const { provider } = await setup(t, [{ text: ["half"], hold: never }, { text: "unused" }], { streamIdleMs: 300 });
  const done = lastDone(await collect(provider.stream(ask())));
  assert.equal(done.stopReason, "error");
  assert.equal(done.errorMessage, "model stream broke after partial output: the model stream stalled: no event for 300 ms");
});

test("a 200 whose body is not an event stream is said for what it is, and not tried again", async (t) => {
  const bodies: [string, string, RegExp][] = [
    ["application/json", '{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}', /answered 200 with an error: invalid_request_error: prompt is too long instead of an event stream \(application\/json\)$/],
    ["text/html", "<html><head><title>Sign in to the proxy</title></head></html>", /answered 200 with an HTML page, "Sign in to the proxy" \(a proxy or gateway in between\?\) instead of an event stream/],
    ["text/plain", "", /answered 200 with an empty body instead of an event stream \(text\/plain\)$/],
  ];
  for (const [type, body, message] of bodies) {
    let requests = 0;
    const server = http.createServer((req, res) => {
      requests++;
      req.resume().on("end", () => res.writeHead(200, { "content-type": type }).end(body));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.after(() => server.close());
    const { port } = server.address() as { port: number };
    const provider = createAnthropicProvider({ apiKey: "k", baseURL: `http://127.0.0.1:${port}`, retryBaseMs: 1 }, {});
    const done = lastDone(await collect(provider.stream(ask())));
    assert.equal(done.stopReason, "error", type);
    assert.match(done.errorMessage ?? "", message);
    assert.match(done.errorMessage ?? "", /^the Anthropic API answered/);
    assert.equal(requests, 1, `${type}: not retried`);
  }
});

test("a failed request says what kind of failure ended it, from its status or its error event's type", async (t) => {
  const { provider } = await setup(
    t,
    [
      { kind: "http-error", status: 429, message: "Slow down" },
      { kind: "http-error", status: 401, errorType: "authentication_error", message: "invalid x-api-key" },
      { kind: "http-error", status: 404, errorType: "not_found_error", message: "model: claude-nope" },
      { kind: "stream-error", afterText: "so far", errorType: "overloaded_error", message: "Overloaded" },
      { kind: "http-error", status: 400, errorType: "invalid_request_error", message: "Your credit balance is too low to access the Anthropic API." },
    ],
    { maxRetries: 0 },
  );
  const errors = [];
  for (let i = 0; i < 5; i++) errors.push(lastDone(await collect(provider.stream(ask()))).error);
  assert.deepEqual(errors, [
    { kind: "rate_limit", code: "429" },
    { kind: "authentication_failed", code: "401" },
    { kind: "model_not_found", code: "404" },
    { kind: "server_error", code: "overloaded_error" },
    { kind: "billing_error", code: "400" },
  ]);
});
