// Which provider a model id reaches, and what a misconfigured id gets back. Requests go to fakes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startFakeAnthropic, startFakeOpenAI } from "@harness/test-utils";
import { createProviderForModel, routeModel } from "./route-model.ts";
import { collect, lastDone, textOf } from "./test-support.ts";

test("bare ids and anthropic/<id> go to Anthropic with the prefix stripped", async (t) => {
  const fake = await startFakeAnthropic({ replies: [{ text: "bare" }, { text: "prefixed" }] });
  t.after(() => fake.close());
  const env = { ANTHROPIC_API_KEY: "ak", ANTHROPIC_BASE_URL: fake.url };
  for (const [id, expectedModel, expectedText] of [
    ["claude-sonnet-4-6", "claude-sonnet-4-6", "bare"],
    ["anthropic/claude-opus-4-6", "claude-opus-4-6", "prefixed"],
  ]) {
    const routed = createProviderForModel(id, env);
    assert.ok(routed.ok, `routed ${id}`);
    assert.equal(routed.provider.name, "anthropic");
    assert.equal(routed.prefix, "anthropic");
    assert.equal(routed.model, expectedModel);
    const events = await collect(routed.provider.stream({ model: routed.model, messages: [{ role: "user", content: "hi" }] }));
    assert.equal(textOf(events), expectedText);
  }
  assert.deepEqual(fake.requests.map((r) => r.body.model), ["claude-sonnet-4-6", "claude-opus-4-6"]);
});

test("openai/<id> goes to OPENAI_BASE_URL with OPENAI_API_KEY", async (t) => {
  const fake = await startFakeOpenAI({ replies: [{ text: "from openai" }] });
  t.after(() => fake.close());
  const routed = createProviderForModel("openai/gpt-5-mini", { OPENAI_API_KEY: "sk-env", OPENAI_BASE_URL: fake.url });
  assert.ok(routed.ok);
  assert.equal(routed.provider.name, "openai");
  assert.equal(routed.model, "gpt-5-mini");
  const events = await collect(routed.provider.stream({ model: routed.model, messages: [{ role: "user", content: "hi" }] }));
  assert.equal(textOf(events), "from openai");
  assert.equal(fake.requests[0].body.model, "gpt-5-mini");
  assert.equal(fake.requests[0].headers.authorization, "Bearer sk-env");
});

test("ollama/<id> goes to OLLAMA_BASE_URL (with /v1 added to a bare host) and never sends the OpenAI key", async (t) => {
  const fake = await startFakeOpenAI({ replies: [{ text: "local" }] });
  t.after(() => fake.close());
  const host = fake.url.replace(/\/v1$/, "");
  const routed = createProviderForModel("ollama/qwen3:8b", { OLLAMA_BASE_URL: host, OPENAI_API_KEY: "sk-secret" });
  assert.ok(routed.ok);
  assert.equal(routed.provider.name, "ollama");
  assert.equal(routed.model, "qwen3:8b");
  await collect(routed.provider.stream({ model: routed.model, messages: [{ role: "user", content: "hi" }] }));
  assert.equal(fake.requests[0].path, "/v1/chat/completions");
  assert.equal(fake.requests[0].body.model, "qwen3:8b");
  assert.doesNotMatch(String(fake.requests[0].headers.authorization), /sk-secret/);
});

test("ollama/<id> without OLLAMA_BASE_URL targets Ollama's default local port", () => {
  const route = routeModel("ollama/llama3.2", {});
  assert.ok(route.ok && route.prefix === "ollama");
  assert.equal(route.model, "llama3.2");
  assert.equal(route.options.baseURL, "http://127.0.0.1:11434/v1");
  assert.equal(route.options.name, "ollama");
});

test("overrides reach the provider", async (t) => {
  const fake = await startFakeOpenAI({ replies: [{ kind: "http-error", status: 500 }, { kind: "http-error", status: 500 }] });
  t.after(() => fake.close());
  const routed = createProviderForModel("openai/gpt-x", {}, { openai: { baseURL: fake.url, apiKey: "k", maxRetries: 1, retryBaseMs: 1 } });
  assert.ok(routed.ok);
  const done = lastDone(await collect(routed.provider.stream({ model: routed.model, messages: [{ role: "user", content: "hi" }] })));
  assert.match(done.errorMessage ?? "", /gave up after 2 attempts/);
  assert.equal(fake.requests.length, 2);
});

test("an unknown prefix is an error value naming the known ones", () => {
  const routed = createProviderForModel("mistral/large", {});
  assert.equal(routed.ok, false);
  assert.ok(!routed.ok);
  assert.match(routed.error, /unknown model provider "mistral"/);
  for (const known of ["anthropic/", "openai/", "ollama/"]) assert.ok(routed.error.includes(known), `names ${known}: ${routed.error}`);
});

test("configuration problems are error values, not exceptions", () => {
  const empty = createProviderForModel("openai/", { OPENAI_API_KEY: "k" });
  assert.ok(!empty.ok);
  assert.match(empty.error, /no model id in "openai\/"/);
  const keyless = createProviderForModel("openai/gpt-5", {});
  assert.ok(!keyless.ok);
  assert.match(keyless.error, /OPENAI_API_KEY is not set/);
  const badEnv = createProviderForModel("claude-sonnet-4-6", { HARNESS_MODEL_RETRIES: "many" });
  assert.ok(!badEnv.ok);
  assert.match(badEnv.error, /HARNESS_MODEL_RETRIES/);
});

test("a compatible server named by OPENAI_BASE_URL needs no key", () => {
  const routed = createProviderForModel("openai/local-model", { OPENAI_BASE_URL: "http://127.0.0.1:8000/v1" });
  assert.ok(routed.ok);
});
