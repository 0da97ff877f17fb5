import assert from "node:assert/strict";
import { test } from "node:test";
import { tempWorkspace } from "../../testing/fixtures.ts";
import { createToolState, type WebSearchOptions, type WebSearchProvider } from "../state.ts";
import { callWithState } from "../test-helpers.ts";
import { WEB_SEARCH_NOT_CONFIGURED, webSearchTool } from "./web-search.ts";

function recordingProvider(results: { title: string; url: string; snippet?: string }[]) {
  const calls: { query: string; options: WebSearchOptions }[] = [];
  const provider: WebSearchProvider = {
    async search(query, options) {
      calls.push({ query, options });
      return results;
    },
  };
  return { provider, calls };
}

test("WebSearch without a provider says it is not configured", async (t) => {
  const cwd = await tempWorkspace(t);
  for (const state of [undefined, createToolState()]) {
    const out = await callWithState(webSearchTool, { query: "node 24 release" }, cwd, state);
    assert.deepEqual(out, { content: WEB_SEARCH_NOT_CONFIGURED, isError: true });
  }
  assert.match(WEB_SEARCH_NOT_CONFIGURED, /^WebSearch is not configured: no search provider is set up for this harness, and this run's model is not served by the Anthropic API or Vertex AI/);
});

test("WebSearch lists the provider's results and enforces the domain filters", async (t) => {
  const cwd = await tempWorkspace(t);
  const { provider, calls } = recordingProvider([
    { title: "Node.js 24", url: "https://nodejs.org/en/blog/release/v24.0.0", snippet: "Node.js 24   is\nout." },
    { title: "Docs", url: "https://docs.nodejs.org/api" },
    { title: "Elsewhere", url: "https://example.com/node" },
  ]);
  const state = createToolState({ webSearch: provider });
  const out = await callWithState(webSearchTool, { query: "node 24", allowed_domains: ["https://NodeJS.org/"] }, cwd, state);
  assert.equal(out.isError, undefined);
  assert.equal(
    out.content,
    'Web search results for "node 24":\n\n1. Node.js 24\n   https://nodejs.org/en/blog/release/v24.0.0\n   Node.js 24 is out.\n\n2. Docs\n   https://docs.nodejs.org/api\n\nCite the pages you use as Markdown links under "Sources:" in your answer.',
  );
  assert.equal(calls[0].query, "node 24");
  assert.deepEqual(calls[0].options.allowedDomains, ["nodejs.org"]);
  assert.ok(calls[0].options.signal instanceof AbortSignal);

  const blocked = await callWithState(webSearchTool, { query: "node 24", blocked_domains: ["nodejs.org"] }, cwd, state);
  assert.match(blocked.content, /1\. Elsewhere\n {3}https:\/\/example\.com\/node\n\nCite/);
  assert.deepEqual(calls[1].options.blockedDomains, ["nodejs.org"]);

  const both = await callWithState(webSearchTool, { query: "node", allowed_domains: ["a.com"], blocked_domains: ["b.com"] }, cwd, state);
  assert.equal(both.isError, true);
  assert.match(both.content, /either allowed_domains or blocked_domains, not both/);
  const short = await callWithState(webSearchTool, { query: "n" }, cwd, state);
  assert.equal(short.isError, true);
  assert.match(short.content, /parameter "query"/);
});

test("WebSearch reports a failing provider and an empty result", async (t) => {
  const cwd = await tempWorkspace(t);
  const failing = createToolState({
    webSearch: {
      async search() {
        throw new Error("quota exceeded");
      },
    },
  });
  assert.deepEqual(await callWithState(webSearchTool, { query: "anything" }, cwd, failing), { content: "Web search failed: quota exceeded", isError: true });
  const empty = createToolState({ webSearch: recordingProvider([]).provider });
  assert.deepEqual(await callWithState(webSearchTool, { query: "zzzz" }, cwd, empty), { content: 'Web search for "zzzz" found no results.' });
});

test("an answer with pages lists them as title — url, then gives the answer; the domain filters still hold", async (t) => {
  const cwd = await tempWorkspace(t);
  const state = createToolState({
    webSearch: {
      async search() {
        return { results: [{ title: "Node.js 24", url: "https://nodejs.org/v24" }, { title: "", url: "https://elsewhere.example/x" }], answer: "Node.js 24 came out in May 2025.\n" };
      },
    },
  });
  const out = await callWithState(webSearchTool, { query: "node 24" }, cwd, state);
  assert.equal(
    out.content,
    'Web search results for "node 24":\n\nLinks:\n- Node.js 24 — https://nodejs.org/v24\n- https://elsewhere.example/x\n\nNode.js 24 came out in May 2025.\n\nCite the pages you use as Markdown links under "Sources:" in your answer.',
  );
  const kept = await callWithState(webSearchTool, { query: "node 24", blocked_domains: ["elsewhere.example"] }, cwd, state);
  assert.doesNotMatch(kept.content, /elsewhere/);
  const none = createToolState({ webSearch: { search: async () => ({ results: [], answer: "Nothing recent on that." }) } });
  assert.equal((await callWithState(webSearchTool, { query: "zzzz" }, cwd, none)).content, 'Web search results for "zzzz":\n\nNothing recent on that.');
});

test("WebSearch refuses domains that are not host names, naming them", async (t) => {
  const cwd = await tempWorkspace(t);
  const { provider, calls } = recordingProvider([]);
  const state = createToolState({ webSearch: provider });
  const bad = await callWithState(webSearchTool, { query: "node", allowed_domains: ["nodejs.org", "not a host", "http://"] }, cwd, state);
  assert.deepEqual(bad, { content: 'allowed_domains must list host names such as "example.com"; these are not: "not a host", "http://".', isError: true });
  const blocked = await callWithState(webSearchTool, { query: "node", blocked_domains: ["*.spam"] }, cwd, state);
  assert.match(blocked.content, /^blocked_domains must list host names .*"\*\.spam"/);
  assert.equal(calls.length, 0);
});

test("the run's own search answers when the conversation sets none; a search the host sets wins", async (t) => {
  const cwd = await tempWorkspace(t);
  const run = recordingProvider([{ title: "From the run", url: "https://run.example/" }]);
  const host = recordingProvider([{ title: "From the host", url: "https://host.example/" }]);
  const signal = new AbortController().signal;
  const call = (state: ReturnType<typeof createToolState> | undefined) =>
    webSearchTool.execute({ query: "who answers" }, { cwd, signal, toolUseId: "t", webSearch: run.provider, ...(state && { state }) });
  assert.match((await call(undefined)).content, /From the run/);
  assert.match((await call(createToolState({ webSearch: host.provider }))).content, /From the host/);
});
