import { z } from "zod";
import { defineTool } from "../../define-tool.ts";
import type { WebSearchAnswer, WebSearchResult } from "../state.ts";

export const WEB_SEARCH_NOT_CONFIGURED =
  "WebSearch is not configured: no search provider is set up for this harness, and this run's model is not served by the Anthropic API or Vertex AI, whose web search it would use. Answer from what you know, or use WebFetch on a page whose address you know (for example a project's documentation site).";

const MAX_SNIPPET_CHARS = 500;
/** A host name: labels of letters, digits and hyphens, separated by dots. */
const HOST = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

const description = `Searches the web and returns the results: title and address of each page, and an answer drawn from them (or a short excerpt of each page).

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
  async execute({ query, allowed_domains, blocked_domains }, { signal, state, webSearch }) {
    const provider = state?.webSearch ?? webSearch;
    if (!provider) return { content: WEB_SEARCH_NOT_CONFIGURED, isError: true };
    const allowed = checkDomains("allowed_domains", allowed_domains);
    if ("error" in allowed) return { content: allowed.error, isError: true };
    const blocked = checkDomains("blocked_domains", blocked_domains);
    if ("error" in blocked) return { content: blocked.error, isError: true };
    if (allowed.hosts.length > 0 && blocked.hosts.length > 0) {
      return { content: "Give either allowed_domains or blocked_domains, not both, in one search.", isError: true };
    }
    let found: WebSearchResult[] | WebSearchAnswer;
    try {
      found = await provider.search(query, {
        signal,
        ...(allowed.hosts.length > 0 && { allowedDomains: allowed.hosts }),
        ...(blocked.hosts.length > 0 && { blockedDomains: blocked.hosts }),
      });
    } catch (error) {
      if (signal.aborted) return { content: "Interrupted by user", isError: true };
      return { content: `Web search failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
    const { results, answer } = Array.isArray(found) ? { results: found, answer: undefined } : found;
    const kept = results.filter((result) => passes(result.url, allowed.hosts, blocked.hosts));
    if (answer !== undefined) return { content: answered(query, kept, answer.trim()) };
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

/** A searching model's result: the pages as "title — url", then its answer. */
function answered(query: string, results: readonly WebSearchResult[], answer: string): string {
  const parts = [`Web search results for ${JSON.stringify(query)}:`];
  if (results.length > 0) parts.push(`Links:\n${results.map((r) => `- ${r.title ? `${r.title} — ${r.url}` : r.url}`).join("\n")}`);
  if (answer) parts.push(answer);
  if (results.length > 0) parts.push('Cite the pages you use as Markdown links under "Sources:" in your answer.');
  else if (!answer) parts.push("No results.");
  return parts.join("\n\n");
}

/** The host names a domain list gives (a scheme, a path and a leading dot are dropped), or an
 * error naming the entries that are not host names. */
function checkDomains(field: string, domains: readonly string[] | undefined): { hosts: string[] } | { error: string } {
  const hosts: string[] = [];
  const bad: string[] = [];
  for (const domain of domains ?? []) {
    const host = domain.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/\/.*$/, "").replace(/^\./, "");
    if (HOST.test(host)) hosts.push(host);
    else bad.push(JSON.stringify(domain));
  }
  if (bad.length > 0) return { error: `${field} must list host names such as "example.com"; these are not: ${bad.join(", ")}.` };
  return { hosts };
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
