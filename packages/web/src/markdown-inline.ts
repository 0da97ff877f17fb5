// Markdown's inline part: code spans, emphasis (* _ ** __), strikethrough (~~), links to http(s)
// addresses ([text](url) and <url>) and backslash escapes. Everything else stays text, as typed
// (HTML and entities included: they are never interpreted). Linear in the text: unmatched
// markers are found once, and nesting is capped so that a run of markers cannot build a deep tree.
import type { MdNode, MdElement } from "./markdown-types.ts";

/** Most inline elements open inside one another; markers past it are text. */
const MAX_NESTING = 8;
const PUNCTUATION = /[!-/:-@[-`{-~]/;
const SAFE_URL = /^https?:\/\/[^\s<>]+$/i;

/** Whether `url` may be a link's target: http(s) only, no spaces or angle brackets, and an address
 * the browser parses as http(s) (one it cannot parse, a control character in it, goes nowhere). */
export function safeUrl(url: string): boolean {
  if (!SAFE_URL.test(url) || /[\u0000-\u001f\u007f]/.test(url)) return false;
  try {
    // Not URL.parse: browsers of before 2024 lack it.
    const parsed = new URL(url);
    return (parsed.protocol === "https:" || parsed.protocol === "http:") && parsed.hostname !== "";
  } catch {
    return false;
  }
}

/** An open marker; `inactive`: a "[" that can no longer make a link (one was made inside it). */
type Opener = { marker: string; parent: MdNode[]; children: MdNode[]; inactive?: boolean };

/** Appends `text` to `into`, merged with a string before it. */
function pushText(into: MdNode[], text: string): void {
  if (text === "") return;
  const last = into.length - 1;
  if (last >= 0 && typeof into[last] === "string") into[last] = (into[last] as string) + text;
  else into.push(text);
}

function pushAll(into: MdNode[], nodes: MdNode[]): void {
  for (const node of nodes) typeof node === "string" ? pushText(into, node) : into.push(node);
}

const EMPHASIS: Record<string, MdElement["tag"]> = { "*": "em", _: "em", "**": "strong", __: "strong", "~~": "del" };

export function parseInline(text: string): MdNode[] {
  const root: MdNode[] = [];
  const stack: Opener[] = [];
  let out = root;
  // Backtick runs of a length with no closer after a position: not searched for again.
  const noCloser = new Map<number, number>();
  let i = 0;
  let plain = 0;
  const flushTo = (end: number) => {
    pushText(out, text.slice(plain, end));
  };
  /** Drops openers from the top down to (not including) `depth`: their markers become text. */
  const unwind = (depth: number) => {
    while (stack.length > depth) {
      const opener = stack.pop()!;
      pushText(opener.parent, opener.marker);
      pushAll(opener.parent, opener.children);
      out = opener.parent;
    }
  };
  const open = (marker: string) => {
    const children: MdNode[] = [];
    stack.push({ marker, parent: out, children });
    out = children;
  };

  while (i < text.length) {
    const c = text[i];
    if (c === "\\" && i + 1 < text.length && PUNCTUATION.test(text[i + 1])) {
      flushTo(i);
      pushText(out, text[i + 1]);
      i += 2;
      plain = i;
      continue;
    }
    if (c === "`") {
      let n = 1;
      while (text[i + n] === "`") n++;
      const close = (noCloser.get(n) ?? -1) > i ? -1 : findRun(text, "`", n, i + n);
      if (close < 0) {
        noCloser.set(n, text.length);
        i += n;
        continue;
      }
      flushTo(i);
      let code = text.slice(i + n, close);
      if (code.length > 2 && code.startsWith(" ") && code.endsWith(" ") && code.trim() !== "") code = code.slice(1, -1);
      out.push({ tag: "code", children: [code] });
      i = close + n;
      plain = i;
      continue;
    }
    if (c === "<") {
      const end = text.indexOf(">", i + 1);
      const url = end < 0 ? "" : text.slice(i + 1, end);
      if (end >= 0 && safeUrl(url)) {
        flushTo(i);
        out.push({ tag: "a", href: url, children: [url] });
        i = end + 1;
        plain = i;
        continue;
      }
      i++;
      continue;
    }
    if (c === "[") {
      if (stack.length >= MAX_NESTING) {
        i++;
        continue;
      }
      flushTo(i);
      open("[");
      i++;
      plain = i;
      continue;
    }
    if (c === "]") {
      const depth = findOpener(stack, "[");
      const target = depth < 0 ? undefined : linkTarget(text, i + 1);
      if (depth < 0 || target === undefined) {
        i++;
        continue;
      }
      flushTo(i);
      unwind(depth + 1);
      const opener = stack.pop()!;
      out = opener.parent;
      if (safeUrl(target.url)) {
        // No link inside a link: the brackets still open around it are text.
        out.push({ tag: "a", href: target.url, children: opener.children });
        for (const other of stack) if (other.marker === "[") other.inactive = true;
      } else {
        pushText(out, "[");
        pushAll(out, opener.children);
        pushText(out, text.slice(i, target.end));
      }
      i = target.end;
      plain = i;
      continue;
    }
    if (c === "*" || c === "_" || c === "~") {
      let n = 1;
      while (text[i + n] === c) n++;
      if (n > 3 || (c === "~" && n !== 2)) {
        i += n;
        continue;
      }
      const before = i === 0 ? " " : text[i - 1];
      const after = i + n >= text.length ? " " : text[i + n];
      const canOpen = !/\s/.test(after) && (c !== "_" || !/[\p{L}\p{N}]/u.test(before));
      const canClose = !/\s/.test(before) && (c !== "_" || !/[\p{L}\p{N}]/u.test(after));
      flushTo(i);
      plain = i + n;
      let left = n;
      // The innermost opener that fits closes first ("***x***": ** then *).
      while (canClose && left > 0) {
        const fits = c === "~" ? ["~~"] : left >= 2 ? [c + c, c] : [c];
        const depth = Math.max(...fits.map((m) => findOpener(stack, m)));
        if (depth < 0) break;
        unwind(depth + 1);
        const opener = stack.pop()!;
        out = opener.parent;
        out.push({ tag: EMPHASIS[opener.marker], children: opener.children });
        left -= opener.marker.length;
      }
      if (left > 0 && canOpen && stack.length + 2 <= MAX_NESTING) {
        if (left !== 2 && c !== "~") open(c);
        if (left >= 2) open(c + c);
      } else pushText(out, c.repeat(left));
      i += n;
      continue;
    }
    i++;
  }
  flushTo(text.length);
  unwind(0);
  return root;
}

function findOpener(stack: Opener[], marker: string): number {
  for (let d = stack.length - 1; d >= 0; d--) if (stack[d].marker === marker && !stack[d].inactive) return d;
  return -1;
}

/** Where the next run of exactly `n` `ch` starts at or after `from`, or -1. */
function findRun(text: string, ch: string, n: number, from: number): number {
  let at = text.indexOf(ch, from);
  while (at >= 0) {
    let m = 1;
    while (text[at + m] === ch) m++;
    if (m === n) return at;
    at = text.indexOf(ch, at + m);
  }
  return -1;
}

/** "(url)" or "(url "title")" right at `at`: the url and where it ends; else undefined. */
function linkTarget(text: string, at: number): { url: string; end: number } | undefined {
  if (text[at] !== "(") return undefined;
  const match = /^\(\s*<?([^\s()<>]*)>?(?:\s+"[^"\n]*")?\s*\)/.exec(text.slice(at, at + 2100));
  return match ? { url: match[1], end: at + match[0].length } : undefined;
}
