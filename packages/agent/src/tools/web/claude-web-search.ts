// WebSearch on Claude, as Claude Code does it: one request to the run's provider that offers the
// model Anthropic's server-side web search tool; the API searches, and the pages it found and the
// model's cited answer become the tool's result.
import type { ContentBlock, ModelMessage, Provider } from "@harness/llm";
import type { Usage } from "@harness/protocol";
import type { WebSearchAnswer, WebSearchProvider, WebSearchResult } from "../state.ts";

/** Searches one request may make, as in Claude Code. */
export const MAX_SEARCHES = 8;
/** Times a turn the API paused (stop reason pause_turn) is sent back to go on. */
const MAX_CONTINUATIONS = 3;
const MAX_TOKENS = 8_000;
const SYSTEM_PROMPT = "You are an assistant for performing a web search tool use.";

/** What the search service's error codes mean. */
const ERROR_CODES: Readonly<Record<string, string>> = {
  max_uses_exceeded: `the search used up its ${MAX_SEARCHES} searches`,
  too_many_requests: "too many searches in a short time; try again later",
  invalid_input: "the query was not accepted",
  query_too_long: "the query is too long; shorten it",
  unavailable: "the search service is unavailable right now; try again later",
};

export type ClaudeWebSearchOptions = {
  /** The run's provider: its client, credentials, base URL and retries. */
  provider: Provider;
  model: string;
  /** Counts the request's usage in the run's. */
  record: (model: string, usage: Usage) => void;
};

export function claudeWebSearch({ provider, model, record }: ClaudeWebSearchOptions): WebSearchProvider {
  return {
    async search(query, { signal, allowedDomains, blockedDomains }): Promise<WebSearchAnswer> {
      const webSearch = { maxUses: MAX_SEARCHES, ...(allowedDomains && { allowedDomains }), ...(blockedDomains && { blockedDomains }) };
      const messages: ModelMessage[] = [{ role: "user", content: `Perform a web search for the query: ${query}` }];
      const blocks: ContentBlock[] = [];
      for (let part = 0; part <= MAX_CONTINUATIONS; part++) {
        const reply = await ask(provider, { model, system: SYSTEM_PROMPT, messages, maxTokens: MAX_TOKENS, webSearch, signal }, record);
        blocks.push(...reply.content);
        if (reply.stopReason !== "pause_turn") break;
        // A paused turn goes on when it is sent back as it is.
        messages.push({ role: "assistant", content: reply.content });
      }
      return answerOf(blocks);
    },
  };
}

async function ask(provider: Provider, request: Parameters<Provider["stream"]>[0], record: ClaudeWebSearchOptions["record"]): Promise<{ content: ContentBlock[]; stopReason: string }> {
  for await (const event of provider.stream(request)) {
    if (event.type !== "done") continue;
    record(request.model, event.usage);
    if (event.stopReason === "aborted") throw new Error("the search was cancelled");
    if (event.stopReason === "error") throw new Error(`the model's search request failed: ${event.errorMessage ?? "unknown error"}`);
    const content = typeof event.message.content === "string" ? [{ type: "text" as const, text: event.message.content }] : event.message.content;
    return { content, stopReason: event.stopReason };
  }
  throw new Error(`the model's search request failed: the ${provider.name} stream ended without a final event`);
}

/** The pages found (each once) and the answer, its cited parts followed by their pages as Markdown
 * links. A search that failed counts only when none found anything: its error is thrown. */
function answerOf(blocks: readonly ContentBlock[]): WebSearchAnswer {
  const results = new Map<string, WebSearchResult>();
  let failure: string | undefined;
  let answer = "";
  for (const block of blocks) {
    if (block.type === "web_search_tool_result") {
      if (!Array.isArray(block.content)) failure ??= block.content.error_code;
      else for (const r of block.content) if (!results.has(r.url)) results.set(r.url, { title: r.title, url: r.url });
    } else if (block.type === "text") {
      const cited = [...new Map((block.citations ?? []).map((c) => [c.url, `[${c.title || c.url}](${c.url})`])).values()];
      answer += cited.length > 0 ? `${block.text} (${cited.join(", ")})` : block.text;
    }
  }
  if (failure !== undefined && results.size === 0) {
    const meaning = ERROR_CODES[failure];
    throw new Error(meaning ? `${failure}: ${meaning}` : `the search service answered ${failure}`);
  }
  return { results: [...results.values()], answer: answer.trim() };
}
