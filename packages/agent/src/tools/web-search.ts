import { z } from "zod";
import { defineTool } from "../define-tool.ts";
import type { WebSearchResult } from "./state.ts";

export const WEB_SEARCH_NOT_CONFIGURED =
  "WebSearch is not configured: no search provider is set up for this harness. Answer from what you know, or use WebFetch on a page whose address you know (for example a project's documentation site).";

const MAX_SNIPPET_CHARS = 500;

const description = `Searches the web and returns the results: title, address and a short excerpt of each page.

Usage:
- Use it for information newer than your training data, or to find the right page before fetching it with WebFetch.
- allowed_domains keeps only results from those domains (and their subdomains); blocked_domains removes results from them. Use one or the other, not both.
- Take the current date into account when phrasing queries about recent events or versions.
- After answering from the results, list the pages you used as Markdown links under a "Sources:" heading.`;

export const webSearchTool = defineTool({
  name: "WebSearch",
  readOnly: true,
  description,
  parameters: z.strictObject({
    query: z.string().min(2).describe("The search query to use"),
    allowed_domains: z.array(z.string()).optional().describe("Only include search results from these domains"),
    blocked_domains: z.array(z.string()).optional().describe("Never include search results from these domains"),
  }),
  async execute({ query, allowed_domains, blocked_domains }, { signal, state }) {
    const provider = state?.webSearch;
    if (!provider) return { content: WEB_SEARCH_NOT_CONFIGURED, isError: true };
    const allowed = normalizeDomains(allowed_domains);
    const blocked = normalizeDomains(blocked_domains);
    if (allowed.length > 0 && blocked.length > 0) {
      return { content: "Give either allowed_domains or blocked_domains, not both, in one search.", isError: true };
    }
    let results: WebSearchResult[];
    try {
      results = await provider.search(query, {
        signal,
        ...(allowed.length > 0 && { allowedDomains: allowed }),
        ...(blocked.length > 0 && { blockedDomains: blocked }),
      });
    } catch (error) {
      if (signal.aborted) return { content: "Interrupted by user", isError: true };
      return { content: `Web search failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
    const kept = results.filter((result) => passes(result.url, allowed, blocked));
    if (kept.length === 0) return { content: `Web search for ${JSON.stringify(query)} found no results.` };
    const lines = kept.map((result, i) => {
      const snippet = result.snippet ? `\n   ${clip(result.snippet.replace(/\s+/g, " ").trim())}` : "";
      return `${i + 1}. ${result.title || result.url}\n   ${result.url}${snippet}`;
    });
    return {
      content: `Web search results for ${JSON.stringify(query)}:\n\n${lines.join("\n\n")}\n\nCite the pages you use as Markdown links under "Sources:" in your answer.`,
    };
  },
});

function normalizeDomains(domains: readonly string[] | undefined): string[] {
  return (domains ?? []).map((d) => d.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/\/.*$/, "").replace(/^\./, "")).filter(Boolean);
}

function passes(url: string, allowed: readonly string[], blocked: readonly string[]): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  const within = (domain: string) => host === domain || host.endsWith(`.${domain}`);
  if (allowed.length > 0 && !allowed.some(within)) return false;
  return !blocked.some(within);
}

function clip(text: string): string {
  return text.length > MAX_SNIPPET_CHARS ? `${text.slice(0, MAX_SNIPPET_CHARS - 1)}…` : text;
}
