import { z } from "zod";
import { defineTool } from "../../define-tool.ts";
import { MAX_TOOL_OUTPUT_CHARS } from "../../truncate.ts";
import { limitsOf } from "../state.ts";

/** Room for the header and the truncation note below the loop's output cap. */
const CONTENT_BUDGET = MAX_TOOL_OUTPUT_CHARS - 2_000;
const ERROR_BODY_CHARS = 2_000;

const description = `Fetches a web page and returns its content as Markdown, together with your prompt about it.

Usage:
- url must be a complete http:// or https:// address.
- HTML is converted to Markdown (scripts and styles removed); plain text, Markdown, JSON and XML are returned as they are. Other content types (images, PDFs, archives) are refused.
- prompt says what you want from the page. No other model reads the page for you: the content comes back with your prompt, and you answer it yourself from the content.
- Long pages are cut to fit; the result says when that happened.
- Redirects within the same site are followed. When a page redirects to a different host, the result says so and gives the new address: call WebFetch again with that url if you want to follow it.
- Read-only: it never changes anything. If an MCP tool for fetching web pages is available, it may do better (for example with pages that need a login).`;

export const webFetchTool = defineTool({
  name: "WebFetch",
  readOnly: true,
  description,
  parameters: z.strictObject({
    url: z.string().min(1).describe("The URL to fetch content from"),
    prompt: z.string().describe("What to find out from the fetched content"),
  }),
  async execute({ url, prompt }, { signal, state, deniedUrl, env, networkEnv }) {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { content: `Invalid URL: ${JSON.stringify(url)}. Give a complete address such as https://example.com/page.`, isError: true };
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return { content: `WebFetch only fetches http:// and https:// URLs, not ${target.protocol}. Use Read for local files.`, isError: true };
    }
    const limits = limitsOf(state);
    // Imported with the first fetch: a run that fetches nothing starts sooner without them.
    const { fetchPage } = await import("./fetch-page.ts");
    const page = await fetchPage(target, { signal, timeoutMs: limits.fetchTimeoutMs, maxBytes: limits.maxFetchBytes, env: networkEnv ?? env ?? process.env, ...(deniedUrl && { refuse: (to: URL) => deniedUrl(to.href) }) });
    if (page.kind === "error") return { content: page.message, isError: true };
    if (page.kind === "redirect") {
      return {
        content: [
          "REDIRECT DETECTED: the URL redirects to a different host, which WebFetch does not follow on its own.",
          "",
          `Original URL: ${page.from}`,
          `Redirect URL: ${page.to}`,
          `Status: ${page.status} ${page.statusText}`.trimEnd(),
          "",
          "To get the content, call WebFetch again with:",
          `- url: ${JSON.stringify(page.to)}`,
          `- prompt: ${JSON.stringify(prompt)}`,
        ].join("\n"),
      };
    }
    const converted = await toText(page.body, page.contentType);
    if ("error" in converted) return { content: `${page.url} returned ${converted.error}`, isError: true };
    if (page.status >= 400) {
      const excerpt = converted.text.slice(0, ERROR_BODY_CHARS);
      return { content: `HTTP ${page.status} ${page.statusText} from ${page.url}.${excerpt ? `\n\n${excerpt}` : ""}`, isError: true };
    }
    let text = converted.text;
    let note = "";
    if (text.length > CONTENT_BUDGET) {
      note = `\n\n[Content truncated: showing the first ${CONTENT_BUDGET.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters.]`;
      text = text.slice(0, CONTENT_BUDGET);
    }
    const header = [
      `URL: ${page.url}`,
      ...(converted.title ? [`Title: ${converted.title}`] : []),
      `Content-Type: ${page.contentType || "unknown"}${converted.markdown ? " (converted to Markdown)" : ""}`,
      `Prompt: ${prompt}`,
      "",
      "Answer the prompt from the page content below.",
      "",
      "---",
    ].join("\n");
    return { content: `${header}\n\n${text || "(The page has no text content.)"}${note}` };
  },
});

type Converted = { text: string; markdown: boolean; title?: string } | { error: string };

async function toText(body: Buffer, contentType: string): Promise<Converted> {
  const [mime = "", ...params] = contentType.toLowerCase().split(";").map((part) => part.trim());
  const charset = params.find((p) => p.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "");
  if (mime === "text/html" || mime === "application/xhtml+xml" || (mime === "" && /^\s*<(!doctype html|html)/i.test(body.subarray(0, 1024).toString("latin1")))) {
    const html = decode(body, charset);
    const { htmlTitle, htmlToMarkdown } = await import("./html-to-markdown.ts");
    const title = htmlTitle(html);
    return { text: await htmlToMarkdown(html), markdown: true, ...(title && { title }) };
  }
  const textual =
    mime.startsWith("text/") ||
    /^application\/([\w.+-]+\+)?(json|xml|javascript|ecmascript|x-yaml|yaml|toml|x-sh|graphql)$/.test(mime) ||
    (mime === "" && !body.subarray(0, 8192).includes(0));
  if (!textual) return { error: `content of type ${mime || "unknown (binary data)"}, which WebFetch cannot read (it reads HTML and text).` };
  return { text: decode(body, charset), markdown: false };
}

function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset || "utf-8").decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}
