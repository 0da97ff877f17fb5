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
const PUNCTUATION = /[!-/:-@[-`{-~]/;
const SPACE = /\s/;
/** Brackets and quotes an emphasis may start right after, before punctuation: (*"quoted"*). */
const OPENING = /[([{"']/;
const WORD = /[\p{L}\p{N}]/u;
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
  const openers = match(read.runs, line.length);
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

type Style = "bold" | "italic" | "strike";
const STYLES: readonly Style[] = ["bold", "italic", "strike"];
type Counts = Record<Style, number>;
/** How many markers the styles `counts` take: two for bold and strikethrough, one for italic. */
const markers = (counts: Counts) => 2 * counts.bold + counts.italic + 2 * counts.strike;

/** A run of * or _ (or ~~) that may open or close emphasis, from `start` to `end` in the line
 * (`start` before where it was read from when `used` of its markers came before, printed as the
 * closers they were). `left`: how many of its markers are not matched yet; `closes`, `opens`: the
 * styles its matched markers close and open; `work`: the openers looked at for it. */
type Run = { ch: string; start: number; end: number; used: number; open: boolean; close: boolean; left: number; closes: Counts; opens: Counts; work: number };

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
      const run = delimiter(c, i, j, i === from ? start.used : 0, s, line[j] ?? " ");
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

/** The run of `ch` from `i` to `j` (after `used` of its markers already printed), between `s.prev`
 * and `next`, as a delimiter run, or undefined when it can neither open nor close (it is text):
 * about as CommonMark reads it, a run before a space opens nothing, nor one between punctuation
 * (src/*.ts); a `_` inside a word (snake_case) neither opens nor closes; only ~~ strikes; in a
 * call's arguments, f(*args, **kwargs), stars and underscores are code, not emphasis. */
function delimiter(ch: string, i: number, j: number, used: number, s: InlineState, next: string): Run | undefined {
  const n = j - i + used;
  const { left, right } = flanking(s.prev, next);
  const emphasis = ch !== "~" && s.call === 0;
  const open = ch === "~" ? n === 2 && left : emphasis && left && (ch === "*" || !WORD.test(s.prev));
  const close = ch === "~" ? n === 2 && right : emphasis && right && (ch === "*" || !WORD.test(next));
  if (!open && !close) return undefined;
  const none = () => ({ bold: 0, italic: 0, strike: 0 });
  return { ch, start: i - used, end: j, used, open, close, left: n - used, closes: none(), opens: none(), work: 0 };
}

/** CommonMark's "process emphasis" on a line's `runs`, in order: each closer matches the nearest
 * opener before it of its character that the rule of 3 allows and that is within REACH of it, the
 * runs between them left as text. Answers the openers left unmatched, in order. */
function match(runs: readonly Run[], length: number): Run[] {
  const openers: Run[] = [];
  /** For each kind of closer (its character, whether it may open, its length mod 3), how many of
   * the openers none matches it: a closer looks no further back than that, nor past the openers
   * that are out of its reach (and so of any closer after it). */
  const bottom = new Map<string, number>();
  let reach = 0;
  for (const closer of runs) {
    const kind = `${closer.ch}${closer.open}${(closer.end - closer.start) % 3}`;
    while (closer.close && closer.left > 0) {
      for (; reach < openers.length && !inReach(openers[reach], closer, length); reach++) closer.work++;
      const low = Math.max(reach, bottom.get(kind) ?? 0);
      let k = openers.length - 1;
      for (; k >= low && !fits(openers[k], closer); k--) closer.work++;
      if (k < low) {
        bottom.set(kind, openers.length);
        break;
      }
      const opener = openers[k];
      const style: Style = closer.ch === "~" ? "strike" : opener.left >= 2 && closer.left >= 2 ? "bold" : "italic";
      const n = style === "italic" ? 1 : 2;
      opener.opens[style]++;
      closer.closes[style]++;
      opener.left -= n;
      closer.left -= n;
      // The openers between the two are text: nothing closes across the span.
      openers.length = opener.left > 0 ? k + 1 : k;
      reach = Math.min(reach, openers.length);
      for (const [key, at] of bottom) if (at > openers.length) bottom.set(key, openers.length);
    }
    if (closer.open && closer.left > 0) openers.push(closer);
  }
  return openers;
}

/** Whether `closer` is within reach of `opener`: it ends, with the character after it, within
 * REACH of the opener's start, or ends the line there. */
const inReach = (opener: Run, closer: Run, length: number) => closer.end < opener.start + REACH || (closer.end === opener.start + REACH && closer.end === length);

/** Whether `closer` may close `opener`: the same character and, for * and _, CommonMark's rule of
 * 3 (of a run that may both open and close, the two runs' lengths may not add up to a multiple of
 * 3 unless both are one). */
function fits(opener: Run, closer: Run): boolean {
  if (opener.ch !== closer.ch) return false;
  const a = opener.end - opener.start;
  const b = closer.end - closer.start;
  return closer.ch === "~" || !((closer.open || opener.close) && b % 3 !== 0 && (a + b) % 3 === 0);
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

/** Which sides of a marker run, between `prev` and `next`, have text: left, it may open a style;
 * right, close one. */
function flanking(prev: string, next: string): { left: boolean; right: boolean } {
  return {
    left: !SPACE.test(next) && (!PUNCTUATION.test(next) || SPACE.test(prev) || OPENING.test(prev)),
    right: !SPACE.test(prev) && (!PUNCTUATION.test(prev) || SPACE.test(next) || PUNCTUATION.test(next)),
  };
}

/** The autolink starting at `i`: what it links to, "text" when it is none, "hold" while the rest
 * of the line may still make it one (its characters so far have no space, < or >). */
function autolink(line: string, i: number, complete: boolean): { end: number; address: string } | "text" | "hold" {
  const found = AUTOLINK.exec(line.slice(i, i + REACH + 2));
  if (found) return { end: i + found[0].length, address: found[1] };
  const rest = line.slice(i + 1);
  return !complete && rest.length <= REACH && /^[A-Za-z0-9][^\s<>]*$|^$/.test(rest) ? "hold" : "text";
}
