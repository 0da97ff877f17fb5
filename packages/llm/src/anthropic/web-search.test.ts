// A request that offers Anthropic's server-side web search: the tool goes out as the API names it,
// and the reply's searches, results and cited text come back in the final message, ready to be
// read or sent back. Clouds and servers without the tool refuse the request in words.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { FAKE_AWS_KEYS, startFakeAnthropic, startFakeOpenAI, webSearchAnswer, type FakeReply } from "@harness/test-utils";
import { createAnthropicProvider } from "./provider.ts";
import { createOpenAIProvider } from "../openai/provider.ts";
import { collect, lastDone, textOf } from "../test-support.ts";

async function fakeWith(t: TestContext, replies: FakeReply[]) {
  const fake = await startFakeAnthropic({ replies });
  t.after(() => fake.close());
  return fake;
}

const ask = { model: "claude-haiku-4-5", messages: [{ role: "user" as const, content: "search node 24" }], maxTokens: 2000 };

test("webSearch sends the web_search_20250305 tool; the searches, results and cited text end up in the message", async (t) => {
  const fake = await fakeWith(t, [
    webSearchAnswer({ query: "node 24", results: [{ title: "Node.js 24", url: "https://nodejs.org/en/blog/release/v24.0.0" }], text: "It came out in May 2025.", cites: [0] }),
  ]);
  const provider = createAnthropicProvider({ apiKey: "k", baseURL: fake.url, retryBaseMs: 1 }, {});
  const events = await collect(provider.stream({ ...ask, webSearch: { maxUses: 8, blockedDomains: ["example.com"] } }));
  const done = lastDone(events);
  assert.equal(done.stopReason, "end_turn", done.errorMessage);
  assert.equal(textOf(events), "It came out in May 2025.");
  assert.deepEqual(fake.requests[0]!.body.tools, [{ type: "web_search_20250305", name: "web_search", max_uses: 8, blocked_domains: ["example.com"] }]);
  assert.ok(!events.some((e) => e.type === "tool-call-start"), "a server search is no tool call of ours");
  const content = done.message.content as Record<string, unknown>[];
  assert.deepEqual(content.map((b) => b.type), ["server_tool_use", "web_search_tool_result", "text"]);
  assert.deepEqual(content[0], { type: "server_tool_use", id: content[1]!.tool_use_id, name: "web_search", input: { query: "node 24" } });
  assert.deepEqual((content[1]!.content as { url: string }[]).map((r) => r.url), ["https://nodejs.org/en/blog/release/v24.0.0"]);
  assert.deepEqual((content[2]!.citations as { url: string; cited_text: string }[]).map((c) => [c.url, c.cited_text]), [["https://nodejs.org/en/blog/release/v24.0.0", "It came out in May 2025."]]);
});

test("Amazon Bedrock and OpenAI-compatible servers refuse webSearch at once, saying why", async (t) => {
  const fake = await fakeWith(t, []);
  const bedrock = createAnthropicProvider(
    { retryBaseMs: 1 },
    { CLAUDE_CODE_USE_BEDROCK: "1", AWS_REGION: "us-west-2", ANTHROPIC_BEDROCK_BASE_URL: fake.url, AWS_ACCESS_KEY_ID: FAKE_AWS_KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: FAKE_AWS_KEYS.secretAccessKey, HOME: "/nonexistent" },
  );
  const refused = lastDone(await collect(bedrock.stream({ ...ask, webSearch: {} })));
  assert.equal(refused.stopReason, "error");
  assert.match(refused.errorMessage ?? "", /Amazon Bedrock does not offer Anthropic's web search tool/);
  assert.equal(fake.requests.length, 0);

  const openai = await startFakeOpenAI();
  t.after(() => openai.close());
  const other = lastDone(await collect(createOpenAIProvider({ baseURL: openai.url, retryBaseMs: 1 }, {}).stream({ ...ask, webSearch: {} })));
  assert.equal(other.stopReason, "error");
  assert.match(other.errorMessage ?? "", /web search tool is Anthropic's: .* does not offer it/);
  assert.equal(openai.requests.length, 0);
});
