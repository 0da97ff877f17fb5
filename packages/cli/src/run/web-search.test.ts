// `harness run` with WebSearch on Claude: the tool asks the model behind the run, through the same
// client, with Anthropic's server-side web search tool, and hands what it found back to the model.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startFakeAnthropic, webSearchAnswer } from "@harness/test-utils";
import { harness, tempDir, withFake } from "../test-support.ts";

type Body = { model: string; tools?: { type?: string; name: string; max_uses?: number; allowed_domains?: string[] }[]; messages: { role: string; content: unknown }[] };

test("WebSearch asks Claude with the web_search server tool; its links and answer come back as the tool_result", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ id: "toolu_search", name: "WebSearch", input: { query: "node 24 release date", allowed_domains: ["nodejs.org"] } }] },
        webSearchAnswer({
          query: "node 24 release date",
          results: [
            { title: "Node.js 24.0.0 (Current)", url: "https://nodejs.org/en/blog/release/v24.0.0" },
            { title: "Node.js releases", url: "https://nodejs.org/en/about/previous-releases" },
          ],
          text: "Node.js 24 was released on 6 May 2025.",
          cites: [0],
        }),
        { text: "Node 24 came out in May 2025." },
      ],
    }),
  );
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_SMALL_FAST_MODEL: "claude-haiku-4-5" };
  const run = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--", "when did node 24 come out?"], env).result;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /Node 24 came out in May 2025\./);

  assert.equal(fake.requests.length, 3);
  const search = fake.requests[1]!.body as Body;
  assert.equal(search.model, "claude-haiku-4-5");
  assert.deepEqual(search.tools, [{ type: "web_search_20250305", name: "web_search", max_uses: 8, allowed_domains: ["nodejs.org"] }]);
  assert.match(JSON.stringify(search.messages), /node 24 release date/);

  const last = (fake.requests[2]!.body as Body).messages.at(-1)!;
  const [result] = last.content as { type: string; tool_use_id: string; content: string; is_error?: boolean }[];
  assert.equal(result!.type, "tool_result");
  assert.equal(result!.tool_use_id, "toolu_search");
  assert.equal(result!.is_error, undefined);
  assert.match(result!.content, /^Web search results for "node 24 release date":/);
  assert.match(result!.content, /- Node\.js 24\.0\.0 \(Current\) — https:\/\/nodejs\.org\/en\/blog\/release\/v24\.0\.0\n- Node\.js releases — https:\/\/nodejs\.org\/en\/about\/previous-releases/);
  assert.match(result!.content, /Node\.js 24 was released on 6 May 2025\./);
});

test("WebSearch turns the search service's error into a tool error the model reads", async (t) => {
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ id: "toolu_search", name: "WebSearch", input: { query: "anything at all" } }] },
        webSearchAnswer({ query: "anything at all", errorCode: "too_many_requests", text: "The search failed." }),
        { text: "I could not search." },
      ],
    }),
  );
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url };
  const run = await harness(["run", "--cwd", tempDir(t), "--", "search"], env).result;
  assert.equal(run.code, 0, run.stderr);
  const [result] = (fake.requests[2]!.body as Body).messages.at(-1)!.content as { content: string; is_error?: boolean }[];
  assert.equal(result!.is_error, true);
  assert.match(result!.content, /too_many_requests/);
  assert.match(result!.content, /too many searches/i);
});

test("a run that searched the web twice costs its tokens plus Anthropic's $10 per 1,000 searches, and counts the searches as Claude Code does", async (t) => {
  const usage = { input_tokens: 1000, output_tokens: 100 };
  const search = (query: string) => ({ ...webSearchAnswer({ query, results: [{ title: "Node.js", url: "https://nodejs.org/" }], text: "Found it." }), usage });
  const fake = await withFake(
    t,
    startFakeAnthropic({
      replies: [
        { toolUses: [{ id: "toolu_1", name: "WebSearch", input: { query: "node 24" } }], usage },
        search("node 24"),
        { toolUses: [{ id: "toolu_2", name: "WebSearch", input: { query: "node 26" } }], usage },
        search("node 26"),
        { text: "Both found.", usage },
      ],
    }),
  );
  const env = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_SMALL_FAST_MODEL: "claude-haiku-4-5" };
  const run = await harness(["run", "--cwd", tempDir(t), "--model", "claude-sonnet-4-6", "--output-format", "json", "--", "search twice"], env).result;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(fake.requests.length, 5);
  const result = JSON.parse(run.stdout) as {
    total_cost_usd: number;
    usage: { server_tool_use?: { web_search_requests: number } };
    modelUsage: Record<string, { costUSD: number; webSearchRequests?: number }>;
  };
  // Sonnet 4.6 at $3/$15 a million tokens for three calls, Haiku 4.5 at $1/$5 for the two searches'.
  const tokens = (3 * (1000 * 3 + 100 * 15) + 2 * (1000 * 1 + 100 * 5)) / 1e6;
  assert.ok(Math.abs(result.total_cost_usd - (tokens + 0.02)) < 1e-9, `cost ${result.total_cost_usd}, expected ${tokens + 0.02}`);
  assert.equal(result.usage.server_tool_use?.web_search_requests, 2);
  assert.equal(result.modelUsage["claude-haiku-4-5"]?.webSearchRequests, 2);
  assert.ok(Math.abs(result.modelUsage["claude-haiku-4-5"]!.costUSD - (0.003 + 0.02)) < 1e-9);
  assert.equal(result.modelUsage["claude-sonnet-4-6"]?.webSearchRequests, 0);
});
