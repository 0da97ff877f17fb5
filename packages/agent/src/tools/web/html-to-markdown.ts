import type TurndownService from "turndown";

let service: Promise<TurndownService> | undefined;

/** Deeper pages are shown as plain text: Turndown walks the document recursively (a page nested
 * 1,500 levels deep overflowed the stack) and in time that grows with the square of the depth (20,000
 * levels held the event loop for 10 s). Browsers' parsers stop nesting at 512 too. */
export const MAX_HTML_DEPTH = 512;

const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"]);

/** How deep the page's elements nest, counted from its tags in one pass. */
export function htmlDepth(html: string): number {
  let depth = 0;
  let deepest = 0;
  for (const match of html.matchAll(/<(\/?)([a-zA-Z][\w:-]*)[^>]*?(\/?)>/g)) {
    const [, closing, name, selfClosing] = match;
    if (closing) depth = Math.max(0, depth - 1);
    else if (!selfClosing && !VOID_ELEMENTS.has(name.toLowerCase())) deepest = Math.max(deepest, ++depth);
  }
  return deepest;
}

/** Markdown for an HTML page: headings, links, lists and code kept; scripts, styles and other
 * invisible content dropped. Turndown and its DOM parser are loaded on first use. A page nested
 * deeper than MAX_HTML_DEPTH comes back as its text. */
export async function htmlToMarkdown(html: string): Promise<string> {
  if (htmlDepth(html) > MAX_HTML_DEPTH) return htmlText(html);
  service ??= import("turndown").then(({ default: Turndown }) =>
    new Turndown({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" }).remove([
      "head",
      "title",
      "script",
      "style",
      "noscript",
      "template",
      "iframe",
      "svg" as keyof HTMLElementTagNameMap,
    ]),
  );
  return (await service).turndown(html).replace(/\n{3,}/g, "\n\n").trim();
}

/** The visible text of a page, without its markup. */
function htmlText(html: string): string {
  const text = html
    .replace(/<(script|style|noscript|template|head|svg)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<(br|p|div|li|tr|h[1-6])\b[^>]*>/gi, "\n")
    .replace(/<[^>]*>/g, " ");
  return decodeEntities(text)
    .replace(/[ \t\f\v\r]+/g, " ")
    .replace(/ *\n[ \n]*/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** The page's <title>, if it has one. */
export function htmlTitle(html: string): string | undefined {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  const title = match?.[1].replace(/\s+/g, " ").trim();
  return title ? decodeEntities(title) : undefined;
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[name.toLowerCase()] ?? whole;
  });
}
