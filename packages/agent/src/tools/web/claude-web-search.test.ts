import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContentBlock, ModelRequest, Provider, StopReason } from "@harness/llm";
import { claudeWebSearch } from "./claude-web-search.ts";

type Reply = { content: ContentBlock[]; stopReason?: StopReason; errorMessage?: string };

/** A provider whose replies end at once with the given content. */
function replying(replies: Reply[]) {
  const requests: ModelRequest[] = [];
  const provider: Provider = {
    name: "anthropic",
    async *stream(request) {
      requests.push({ ...request, messages: request.messages.slice() });
      const reply = replies.shift() ?? { content: [], stopReason: "error", errorMessage: "no reply left" };
      yield {
        type: "done",
        stopReason: reply.stopReason ?? "end_turn",
        message: { role: "assistant", content: reply.content },
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 },
        ...(reply.errorMessage && { errorMessage: reply.errorMessage }),
      };
    },
  };
  return { provider, requests };
}

const result = (id: string, pages: [string, string][]): ContentBlock => ({
  type: "web_search_tool_result",
  tool_use_id: id,
  content: pages.map(([title, url]) => ({ type: "web_search_result", title, url, encrypted_content: "x" })),
});
const use = (id: string, query: string): ContentBlock => ({ type: "server_tool_use", id, name: "web_search", input: { query } });
const signal = new AbortController().signal;

test("a Claude search asks the model once with the web search tool and gives its pages and cited answer", async () => {
  const { provider, requests } = replying([
    {
      content: [
        use("srv_1", "node 24"),
        result("srv_1", [["Node.js 24", "https://nodejs.org/v24"], ["Releases", "https://nodejs.org/releases"]]),
        { type: "text", text: "Node.js 24 came out " },
        { type: "text", text: "in May 2025.", citations: [{ type: "web_search_result_location", url: "https://nodejs.org/v24", title: "Node.js 24", cited_text: "…", encrypted_index: "e" }] },
      ],
    },
  ]);
  const spent: [string, number][] = [];
  const search = claudeWebSearch({ provider, model: "claude-haiku-4-5", record: (model, usage) => spent.push([model, usage.inputTokens]) });
  const answer = await search.search("node 24", { signal, allowedDomains: ["nodejs.org"] });
  assert.deepEqual(answer, {
    results: [
      { title: "Node.js 24", url: "https://nodejs.org/v24" },
      { title: "Releases", url: "https://nodejs.org/releases" },
    ],
    answer: "Node.js 24 came out in May 2025. ([Node.js 24](https://nodejs.org/v24))",
  });
  assert.equal(requests.length, 1);
  assert.equal(requests[0]!.model, "claude-haiku-4-5");
  assert.deepEqual(requests[0]!.webSearch, { maxUses: 8, allowedDomains: ["nodejs.org"] });
  assert.equal(requests[0]!.signal, signal);
  assert.match(JSON.stringify(requests[0]!.messages), /Perform a web search for the query: node 24/);
  assert.deepEqual(spent, [["claude-haiku-4-5", 100]]);
});

test("a paused turn is sent back to go on, and the pages of both parts are kept once each", async () => {
  const { provider, requests } = replying([
    { content: [use("srv_1", "a"), result("srv_1", [["A", "https://a.example/"]])], stopReason: "pause_turn" },
    { content: [use("srv_2", "b"), result("srv_2", [["A", "https://a.example/"], ["B", "https://b.example/"]]), { type: "text", text: "Both." }] },
  ]);
  const answer = await claudeWebSearch({ provider, model: "m", record: () => {} }).search("a or b", { signal });
  assert.deepEqual(answer, { results: [{ title: "A", url: "https://a.example/" }, { title: "B", url: "https://b.example/" }], answer: "Both." });
  assert.equal(requests.length, 2);
  assert.deepEqual(requests[1]!.messages.at(-1), { role: "assistant", content: [use("srv_1", "a"), result("srv_1", [["A", "https://a.example/"]])] });
});

test("the search service's error codes and a failed request become errors that say what happened", async () => {
  const failing = (code: string) => replying([{ content: [use("s", "q"), { type: "web_search_tool_result", tool_use_id: "s", content: { type: "web_search_tool_result_error", error_code: code } }, { type: "text", text: "Sorry." }] }]).provider;
  const ask = (provider: Provider) => claudeWebSearch({ provider, model: "m", record: () => {} }).search("query", { signal });
  await assert.rejects(ask(failing("too_many_requests")), /too_many_requests: too many searches in a short time; try again later/);
  await assert.rejects(ask(failing("max_uses_exceeded")), /max_uses_exceeded: the search used up its 8 searches/);
  await assert.rejects(ask(failing("something_new")), /the search service answered something_new/);
  const broken = replying([{ content: [], stopReason: "error", errorMessage: "529 overloaded" }]).provider;
  await assert.rejects(ask(broken), /the model's search request failed: 529 overloaded/);
});
