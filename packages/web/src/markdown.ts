// Markdown's block part, for the model's replies: paragraphs, ATX headings, fenced code blocks (one
// still open, as while a reply streams, holds the rest of the text), lists (a nested list one level
// down; deeper items are the nested item's text), block quotes, thematic breaks. A subset of
// CommonMark that is enough for what models write; what it does not know stays text. Builds a tree
// of plain data (markdown-types.ts), never HTML.
import { parseInline } from "./markdown-inline.ts";
import type { MdBlock, MdElement, MdNode } from "./markdown-types.ts";

export { safeUrl } from "./markdown-inline.ts";
export type { MdBlock, MdElement, MdNode } from "./markdown-types.ts";

/** Most block quotes and list items open inside one another; deeper ones are text. */
const MAX_DEPTH = 4;
/** List levels: a list, and one nested in its items. */
const MAX_LIST_LEVELS = 2;

const FENCE = /^( {0,3})(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const QUOTE = /^ {0,3}> ?/;
const ITEM = /^( *)([-*+]|\d{1,9}[.)])(?:[ \t]+(.*)|[ \t]*$)/;

type Context = { depth: number; lists: number };

/** `text` as top-level blocks, each with the lines it came from. */
export function parseMarkdown(text: string): MdBlock[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  return blocks(lines, { depth: 0, lists: 0 }).map(({ node, start, end }) => ({ node, source: lines.slice(start, end).join("\n") }));
}

function indentOf(line: string): number {
  let n = 0;
  for (const c of line) {
    if (c === " ") n++;
    else if (c === "\t") n += 4 - (n % 4);
    else break;
  }
  return n;
}

/** Whether `line` starts a block other than a paragraph (and so ends one). */
function interrupts(line: string, context: Context): boolean {
  if (FENCE.test(line) || HEADING.test(line) || BREAK.test(line) || (QUOTE.test(line) && context.depth < MAX_DEPTH)) return true;
  const item = ITEM.exec(line);
  // As in CommonMark, an ordered item interrupts a paragraph only when it starts at 1.
  return item !== null && context.lists < MAX_LIST_LEVELS && item[3] !== undefined && (/^[-*+]$/.test(item[2]) || /^1[.)]$/.test(item[2]));
}

function blocks(lines: string[], context: Context): { node: MdElement; start: number; end: number }[] {
  const out: { node: MdElement; start: number; end: number }[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const start = i;
    if (line.trim() === "") {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const [, indent, marks, lang] = fence;
      const body: string[] = [];
      i++;
      while (i < lines.length) {
        const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[i]);
        if (close && close[1][0] === marks[0] && close[1].length >= marks.length) break;
        body.push(lines[i].slice(Math.min(indent.length, indentOf(lines[i]))));
        i++;
      }
      if (i < lines.length) i++;
      out.push({ node: { tag: "pre", ...(lang && { lang }), children: [body.join("\n")] }, start, end: i });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      const content = (heading[2] ?? "").replace(/(?:^|[ \t]+)#+$/, "");
      out.push({ node: { tag: `h${heading[1].length}` as MdElement["tag"], children: parseInline(content) }, start, end: ++i });
      continue;
    }
    if (BREAK.test(line)) {
      out.push({ node: { tag: "hr", children: [] }, start, end: ++i });
      continue;
    }
    if (QUOTE.test(line) && context.depth < MAX_DEPTH) {
      const inner: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i])) inner.push(lines[i++].replace(QUOTE, ""));
      out.push({ node: { tag: "blockquote", children: blocks(inner, { ...context, depth: context.depth + 1 }).map((b) => b.node) }, start, end: i });
      continue;
    }
    const item = ITEM.exec(line);
    if (item && context.lists < MAX_LIST_LEVELS && context.depth < MAX_DEPTH) {
      const list = listAt(lines, i, context);
      out.push({ node: list.node, start, end: list.end });
      i = list.end;
      continue;
    }
    const text: string[] = [line.trim()];
    i++;
    while (i < lines.length && lines[i].trim() !== "" && !interrupts(lines[i], context)) text.push(lines[i++].trim());
    out.push({ node: { tag: "p", children: parseInline(text.join("\n")) }, start, end: i });
  }
  return out;
}

/** The list whose first item is at `lines[from]`: items of the same kind at about the same indent,
 * each with the lines indented under it (a blank line between items keeps the list going). */
function listAt(lines: string[], from: number, context: Context): { node: MdElement; end: number } {
  const first = ITEM.exec(lines[from])!;
  const ordered = /\d/.test(first[2]);
  const base = first[1].length;
  const items: MdNode[] = [];
  let i = from;
  while (i < lines.length) {
    const item = ITEM.exec(lines[i]);
    if (!item || /\d/.test(item[2]) !== ordered || item[1].length > base + 1 || item[1].length < base) break;
    const contentIndent = item[3] === undefined ? base + item[2].length + 1 : lines[i].length - item[3].length;
    const body: string[] = [item[3] ?? ""];
    i++;
    while (i < lines.length) {
      const line = lines[i];
      if (line.trim() === "") {
        const next = nextNonBlank(lines, i);
        if (next === lines.length || indentOf(lines[next]) < Math.min(contentIndent, base + 2)) break;
        for (; i < next; i++) body.push("");
        continue;
      }
      const indent = indentOf(line);
      if (indent >= Math.min(contentIndent, base + 2)) body.push(line.slice(Math.min(line.length, contentIndent, indent)));
      else if (!sameKind(line, ordered, base) && !interrupts(line, context) && body[body.length - 1] !== "") body.push(line.trim());
      else break;
      i++;
    }
    while (body.length > 0 && body[body.length - 1] === "") body.pop();
    const inner = blocks(body, { depth: context.depth + 1, lists: context.lists + 1 }).map((b) => b.node);
    // A tight item's text sits in the item itself, not in a paragraph of it.
    const children: MdNode[] = inner[0]?.tag === "p" ? [...inner[0].children, ...inner.slice(1)] : inner;
    items.push({ tag: "li", children });
    const next = nextNonBlank(lines, i);
    if (next < lines.length && sameKind(lines[next], ordered, base)) i = next;
  }
  const start = ordered ? parseInt(first[2], 10) : 1;
  return { node: { tag: ordered ? "ol" : "ul", ...(start !== 1 && { start }), children: items }, end: i };
}

function sameKind(line: string, ordered: boolean, base: number): boolean {
  const item = ITEM.exec(line);
  return item !== null && /\d/.test(item[2]) === ordered && item[1].length <= base + 1 && item[1].length >= base;
}

/** The index of the first line at or after `from` that is not blank, or lines.length. */
function nextNonBlank(lines: string[], from: number): number {
  let i = from;
  while (i < lines.length && lines[i].trim() === "") i++;
  return i;
}
