import type TurndownService from "turndown";

let service: Promise<TurndownService> | undefined;

/** Markdown for an HTML page: headings, links, lists and code kept; scripts, styles and other
 * invisible content dropped. Turndown and its DOM parser are loaded on first use. */
export async function htmlToMarkdown(html: string): Promise<string> {
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
