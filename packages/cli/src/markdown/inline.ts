// The inline part of the terminal's markdown (stream.ts): **bold**, *italic* and _italic_,
// ~~strikethrough~~, `code`, [links](url), <autolinks> and backslash escapes, within one line, as
// far as what has come of the line decides. Emphasis is read as CommonMark reads delimiter runs
// ("process emphasis", the rule of 3 included: *a *b* c* nests, **a* is * then a in italic), a
// closer matching only an opener within REACH before it: an opener nothing closes (use *args and
// **kwargs) is text. A decision never depends on where the text was cut into chunks: the text from
// an opener on is held only while a closer may still come for it (the line has not ended, nor gone
// REACH past it), and a marker while its own characters (the rest of its run, the one after it, a
// link's closing bracket, an autolink's >) have not come. A line's reading costs time linear in its
// length: a closer looks back over each opener before it at most once for each kind of run.

import { delimiter, markers, match, PUNCTUATION, STYLES, WORD, type Counts, type Run } from "./emphasis.ts";

/** Writes `text` in `style`: SGR parameters ("1;3"), "" for none. */
export type Put = (text: string, style: string) => void;

/** Where a line's reading stopped, for the next reading to go on from: no emphasis is open there
 * (what an opener styles is printed once its closer has come). `code`: the length of the backtick
 * run that opened a code span, 0 outside one. `call`: how deep in a call's parentheses (`f(`) the
 * line is. `prev`: the character before the next one read (a line starts with a space). `used`:
 * how many markers of the run read next came before it, printed as the closers they were. */
export type InlineState = { code: number; call: number; prev: string; used: number };

export const BOLD = "1";
export const DIM = "2";
export const ITALIC = "3";
export const UNDERLINE = "4";
export const STRIKE = "9";
export const CODE = "36";

/** A link's text and its URL are looked for this far: a `[` with no `](…)` within reach is text;
 * so is an emphasis marker with no closer within reach, so that a long line goes on streaming. */
export const REACH = 300;
/** Characters that may start markup; any other is printed as it comes. */
const SPECIAL = /[\\`*_~[!<()]/g;
/** An autolink: a URI with a scheme, or an email address, between < and >. */
const AUTOLINK = /^<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[A-Za-z0-9][\w.!#$%&'*+/=?^`{|}~-]*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)>/;

export const newInline = (): InlineState => ({ code: 0, call: 0, prev: " ", used: 0 });

/** Styles joined as SGR parameters, the empty ones left out. */
export const join = (...styles: (string | false)[]): string => styles.filter(Boolean).join(";");

/** Puts `line` (without its "\n") from `from`, on `base` (a heading's bold), as far as can be
 * decided; `complete`: the line ends where `line` does. Answers where it stopped: what is left waits
 * for more of the line, read again from there with `s` as it is left. `meter`: told the work the
 * reading took, in characters read and openers looked at. */
export function renderInline(line: string, from: number, complete: boolean, s: InlineState, base: string, put: Put, meter?: (work: number) => void): number {
  const read = scan(line, from, complete, s);
  const openers = match(read.runs, line.length, REACH);
  // The first opener a closer may still come for: the text from it on waits (its markers that
  // closed styles before it are printed).
  const live = complete ? undefined : openers.find((opener) => read.stop < opener.start + REACH);
  meter?.(read.stop - from + read.tokens.length + openers.length + read.runs.reduce((work, run) => work + run.work, 0));
  const depth: Counts = { bold: 0, italic: 0, strike: 0 };
  const styled = () => join(base, depth.bold > 0 && BOLD, depth.italic > 0 && ITALIC, depth.strike > 0 && STRIKE);
  for (const token of read.tokens) {
    if (token.type === "text") put(token.text, join(styled(), token.code && CODE));
    else if (token.type === "link") putLink(token.label, token.url, styled(), put);
    else if (token.type === "autolink") put(token.address, join(styled(), UNDERLINE));
    else {
      const { run } = token;
      for (const style of STYLES) depth[style] -= run.closes[style];
      if (run === live) {
        Object.assign(s, token.state, { used: run.used + markers(run.closes) });
        return token.at + markers(run.closes);
      }
      put(run.ch.repeat(run.end - token.at - markers(run.closes) - markers(run.opens)), styled());
      for (const style of STYLES) depth[style] += run.opens[style];
    }
  }
  Object.assign(s, read.state);
  return read.stop;
}

/** What a line reads as, up to where it can be told: `at` where each piece starts and `state` the
 * reading's state before it. */
type Token = { at: number; state: InlineState } & (
  | { type: "text"; text: string; code: boolean }
  | { type: "run"; run: Run }
  | { type: "link"; label: string; url: string }
  | { type: "autolink"; address: string }
);

/** The pieces of `line` from `from`, up to `stop`: the line's end, or a piece whose characters
 * have not all come (a marker at the end, a link or autolink not closed yet); `state` there. */
function scan(line: string, from: number, complete: boolean, start: InlineState): { tokens: Token[]; runs: Run[]; stop: number; state: InlineState } {
  const s: InlineState = { ...start, used: 0 };
  const tokens: Token[] = [];
  const runs: Run[] = [];
  let i = from;
  const text = (t: string) => {
    if (!t) return;
    tokens.push({ type: "text", at: i, state: { ...s }, text: t, code: s.code > 0 });
    s.prev = t.at(-1)!;
  };
  const stopped = () => ({ tokens, runs, stop: i, state: s });
  while (i < line.length) {
    const c = line[i];
    if (s.code > 0) {
      // In a code span every marker is literal: only a run of as many backticks ends it.
      if (c !== "`") {
        const j = line.indexOf("`", i);
        text(line.slice(i, j === -1 ? line.length : j));
        i = j === -1 ? line.length : j;
        continue;
      }
      const j = runEnd(line, i);
      if (j === line.length && !complete) return stopped();
      if (j - i === s.code) {
        s.code = 0;
        s.prev = "`";
      } else text(line.slice(i, j));
      i = j;
      continue;
    }
    if (c === "\\") {
      if (i + 1 === line.length && !complete) return stopped();
      const escaped = i + 1 < line.length && PUNCTUATION.test(line[i + 1]);
      text(escaped ? line[i + 1] : c);
      i += escaped ? 2 : 1;
      continue;
    }
    if (c === "`") {
      const j = runEnd(line, i);
      if (j === line.length) {
        if (!complete) return stopped();
        text(line.slice(i));
      } else s.code = j - i;
      i = j;
      continue;
    }
    if (c === "*" || c === "_" || c === "~") {
      const j = runEnd(line, i);
      if (j === line.length && !complete) return stopped();
      const run = delimiter(c, i, j, i === from ? start.used : 0, s.prev, s.call, line[j] ?? " ");
      if (run) {
        tokens.push({ type: "run", at: i, state: { ...s }, run });
        runs.push(run);
      } else text(line.slice(i, j));
      s.prev = c;
      i = j;
      continue;
    }
    if (c === "(" || c === ")") {
      if (c === "(" && (s.call > 0 || WORD.test(s.prev))) s.call++;
      else if (c === ")" && s.call > 0) s.call--;
      text(c);
      i++;
      continue;
    }
    if (c === "<") {
      const found = autolink(line, i, complete);
      if (found === "hold") return stopped();
      if (found === "text") {
        text(c);
        i++;
        continue;
      }
      tokens.push({ type: "autolink", at: i, state: { ...s }, address: found.address });
      s.prev = ">";
      i = found.end;
      continue;
    }
    if (c === "[" || c === "!") {
      const found = link(line, i, complete);
      if (found === "hold") return stopped();
      if (found === "text") {
        text(c);
        i++;
        continue;
      }
      tokens.push({ type: "link", at: i, state: { ...s }, label: found.text, url: found.url });
      s.prev = ")";
      i = found.end;
      continue;
    }
    SPECIAL.lastIndex = i + 1;
    const next = SPECIAL.exec(line)?.index ?? line.length;
    text(line.slice(i, next));
    i = next;
  }
  return stopped();
}

/** Where the run of the character at `i` ends. */
function runEnd(line: string, i: number): number {
  let j = i;
  while (j < line.length && line[j] === line[i]) j++;
  return j;
}

/** The link (or image) starting at `i`: its text and URL, "text" when it is none, "hold" when
 * the rest of the line may still make it one. */
function link(line: string, i: number, complete: boolean): { end: number; text: string; url: string } | "text" | "hold" {
  const open = line[i] === "!" ? i + 1 : i;
  if (open === line.length) return complete ? "text" : "hold";
  if (line[open] !== "[") return "text";
  const close = line.indexOf("]", open + 1);
  if (close === -1 || close - open > REACH) return complete || line.length - open > REACH ? "text" : "hold";
  if (close + 1 === line.length) return complete ? "text" : "hold";
  if (line[close + 1] !== "(") return "text";
  const end = line.indexOf(")", close + 2);
  if (end === -1 || end - close > REACH) return complete || line.length - close > REACH ? "text" : "hold";
  return { end: end + 1, text: line.slice(open + 1, close), url: line.slice(close + 2, end) };
}

/** A link as its text, then its URL in brackets when that says something the text does not. */
function putLink(label: string, target: string, base: string, put: Put): void {
  // `<url>` and a title after the URL (`url "title"`) are markdown's, not the URL's.
  const url = target.trim().replace(/^<(.*)>$/, "$1").replace(/\s+(".*"|'.*')$/, "");
  renderInline(label, 0, true, newInline(), join(base, UNDERLINE), put);
  if (url && url !== label && url !== `mailto:${label}`) put(label ? ` (${url})` : url, join(base, DIM));
}

/** The autolink starting at `i`: what it links to, "text" when it is none, "hold" while the rest
 * of the line may still make it one (its characters so far have no space, < or >). */
function autolink(line: string, i: number, complete: boolean): { end: number; address: string } | "text" | "hold" {
  const found = AUTOLINK.exec(line.slice(i, i + REACH + 2));
  if (found) return { end: i + found[0].length, address: found[1] };
  const rest = line.slice(i + 1);
  return !complete && rest.length <= REACH && /^[A-Za-z0-9][^\s<>]*$|^$/.test(rest) ? "hold" : "text";
}
