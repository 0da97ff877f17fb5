// The inline part of the terminal's markdown (stream.ts): **bold**, *italic* and _italic_,
// ~~strikethrough~~, `code`, [links](url), <autolinks> and backslash escapes, within one line, as
// far as what has come of the line decides. Emphasis opens only when its closer comes on the
// line, as CommonMark reads it: an opener nothing closes (use *args and **kwargs) is text. A
// decision never depends on where the text was cut into chunks: a marker is held only while the
// characters it needs to be read (the rest of its run, the one after it, a link's closing bracket,
// an autolink's >, an emphasis's closer within REACH) have not come yet.

/** Writes `text` in `style`: SGR parameters ("1;3"), "" for none. */
export type Put = (text: string, style: string) => void;

/** The styles open on a line. `bold`, `italic`: the marker that opened them ("*" or "_"), "" when
 * not open; `strike`: whether ~~ opened strikethrough. `code`: the length of the backtick run that
 * opened a code span, 0 outside one. `call`: how deep in a call's parentheses (`f(`) the line is.
 * `prev`: the character before the next one read (a line starts with a space). */
export type InlineState = { bold: string; italic: string; strike: boolean; code: number; call: number; prev: string };

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

export const newInline = (): InlineState => ({ bold: "", italic: "", strike: false, code: 0, call: 0, prev: " " });

/** Styles joined as SGR parameters, the empty ones left out. */
export const join = (...styles: (string | false)[]): string => styles.filter(Boolean).join(";");

/** Puts `line` (without its "\n") from `from`, on `base` (a heading's bold), as far as can be
 * decided; `complete`: the line ends where `line` does. Answers where it stopped: what is left waits
 * for more of the line. */
export function renderInline(line: string, from: number, complete: boolean, s: InlineState, base: string, put: Put): number {
  return read(line, from, complete, s, base, put);
}

/** Styles a marker opens. */
type Styles = { bold: boolean; italic: boolean; strike: boolean };
/** The styles a marker opened, while the rest of its line is read to see whether they close:
 * each is true until its closer is read. `inner`: how many openers of the same style and marker
 * have come since and not closed: the next closer is theirs (*a *b* is *a then b in italic). */
type Watch = Styles & { inner: { bold: number; italic: number } };

/** renderInline, or, given `watch`, the look ahead of a marker that opened the styles it watches:
 * what it reads is not put, markers in it open styles as they are read (a look ahead does not
 * look ahead again: each marker costs at most REACH characters read, and a line's work stays
 * linear in its length), and it stops once the styles watched have closed. */
function read(line: string, from: number, complete: boolean, s: InlineState, base: string, put: Put, watch?: Watch): number {
  const styled = () => join(base, s.bold && BOLD, s.italic && ITALIC, s.strike && STRIKE);
  const text = (t: string) => {
    if (!t) return;
    put(t, join(styled(), s.code > 0 && CODE));
    s.prev = t.at(-1)!;
  };
  let i = from;
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
      if (j === line.length && !complete) return i;
      if (j - i === s.code) {
        s.code = 0;
        s.prev = "`";
      } else text(line.slice(i, j));
      i = j;
      continue;
    }
    if (c === "\\") {
      if (i + 1 === line.length && !complete) return i;
      const escaped = i + 1 < line.length && PUNCTUATION.test(line[i + 1]);
      text(escaped ? line[i + 1] : c);
      i += escaped ? 2 : 1;
      continue;
    }
    if (c === "`") {
      const j = runEnd(line, i);
      if (j === line.length) {
        if (!complete) return i;
        text(line.slice(i));
      } else s.code = j - i;
      i = j;
      continue;
    }
    if (c === "*" || c === "_") {
      const j = runEnd(line, i);
      if (j === line.length && !complete) return i;
      // In a call's arguments, f(*args, **kwargs), stars and underscores are code, not emphasis:
      // read at the marker, they would style the rest of the line.
      if (s.call > 0) text(line.slice(i, j));
      else {
        const after = { ...s };
        const run = emphasis(c, j - i, line[j] ?? " ", after, watch?.inner);
        const open = watch || !(run.bold || run.italic) ? run : closers(line, i, j, complete, after, { ...run, strike: false });
        if (open === "hold") return i;
        // What it closed is closed; what it opens, once its closer is known to come, opens after
        // its markers that are text: ***a** is *, then a in bold.
        Object.assign(s, after, { bold: run.bold ? "" : after.bold, italic: run.italic ? "" : after.italic });
        text(c.repeat(j - i - run.closed - (open.bold ? 2 : 0) - (open.italic ? 1 : 0)));
        if (open.bold) s.bold = c;
        if (open.italic) s.italic = c;
        s.prev = c;
      }
      i = j;
      if (watch) watched(s, watch);
      if (watch && !watch.bold && !watch.italic && !watch.strike) return i;
      continue;
    }
    if (c === "(" || c === ")") {
      if (c === "(" && (s.call > 0 || WORD.test(s.prev))) s.call++;
      else if (c === ")" && s.call > 0) s.call--;
      text(c);
      i++;
      continue;
    }
    if (c === "~") {
      const j = runEnd(line, i);
      if (j === line.length && !complete) return i;
      const { left, right } = flanking(s.prev, line[j] ?? " ");
      if (j - i === 2 && s.strike && right) s.strike = false;
      else if (j - i === 2 && !s.strike && left) {
        const open = watch ? { strike: true } : closers(line, i, j, complete, { ...s, strike: true, prev: "~" }, { bold: false, italic: false, strike: true });
        if (open === "hold") return i;
        if (open.strike) s.strike = true;
        else text("~~");
      } else text(line.slice(i, j));
      s.prev = "~";
      i = j;
      if (watch) watched(s, watch);
      if (watch && !watch.bold && !watch.italic && !watch.strike) return i;
      continue;
    }
    if (c === "<") {
      const found = autolink(line, i, complete);
      if (found === "hold") return i;
      if (found === "text") {
        text(c);
        i++;
        continue;
      }
      put(found.address, join(styled(), UNDERLINE));
      s.prev = ">";
      i = found.end;
      continue;
    }
    if (c === "[" || c === "!") {
      const found = link(line, i, complete);
      if (found === "hold") return i;
      if (found === "text") {
        text(c);
        i++;
        continue;
      }
      if (!watch) putLink(found.text, found.url, styled(), put);
      s.prev = ")";
      i = found.end;
      continue;
    }
    SPECIAL.lastIndex = i + 1;
    const next = SPECIAL.exec(line)?.index ?? line.length;
    text(line.slice(i, next));
    i = next;
  }
  return i;
}

/** Where the run of the character at `i` ends. */
function runEnd(line: string, i: number): number {
  let j = i;
  while (j < line.length && line[j] === line[i]) j++;
  return j;
}

/** A run of `n` `ch` (`*` or `_`) followed by `next`: it closes the styles of `s` it matches,
 * then may open others with what is left of it, by which side of it text is on, about as CommonMark
 * reads it: a run before a space opens nothing, nor one between punctuation (src/*.ts); a `_`
 * inside a word (snake_case) neither opens nor closes. Answers how many of its markers closed
 * styles and which styles the rest may open; the markers that do neither are text. */
function emphasis(ch: string, n: number, next: string, s: InlineState, inner?: Watch["inner"]): { closed: number; bold: boolean; italic: boolean } {
  const prev = s.prev;
  const { left, right } = flanking(prev, next);
  const opens = left && (ch === "*" || !WORD.test(prev));
  const closes = right && (ch === "*" || !WORD.test(next));
  let rest = n;
  // In a look ahead (`inner` given), a closer closes first the openers read since the one watched.
  const close = (style: "bold" | "italic") => (inner?.[style] ? inner[style]-- : (s[style] = ""));
  if (closes) {
    if (rest >= 2 && s.bold === ch) close("bold"), (rest -= 2);
    if (rest >= 1 && s.italic === ch) close("italic"), (rest -= 1);
    if (rest >= 2 && s.bold === ch) close("bold"), (rest -= 2);
  }
  if (inner && opens && rest === 2 && s.bold === ch) inner.bold++, (rest = 0);
  if (inner && opens && rest === 1 && s.italic === ch) inner.italic++, (rest = 0);
  const bold = opens && ((rest === 2 && !s.bold) || (rest === 3 && !s.bold && !s.italic));
  const italic = opens && ((rest === 1 && !s.italic) || (rest === 3 && !s.bold && !s.italic));
  if (bold) s.bold = ch;
  if (italic) s.italic = ch;
  s.prev = ch;
  return { closed: n - rest, bold, italic };
}

/** Which of the styles `open` (opened by the marker run from `i` to `j`, `s` the state after it)
 * the rest of the line closes; "hold" while it has not come far enough to tell. A closer is looked
 * for up to REACH characters from the marker: past that the styles it has not closed are text, so
 * a long line goes on streaming (and held text stays short). */
function closers(line: string, i: number, j: number, complete: boolean, s: InlineState, open: Styles): Styles | "hold" {
  const end = Math.min(line.length, i + REACH);
  const watch = { ...open, inner: { bold: 0, italic: 0 } };
  read(line.slice(0, end), j, complete && end === line.length, { ...s }, "", () => {}, watch);
  if ((watch.bold || watch.italic || watch.strike) && end === line.length && !complete) return "hold";
  return { bold: open.bold && !watch.bold, italic: open.italic && !watch.italic, strike: open.strike && !watch.strike };
}

/** Marks in `watch` the styles watched that `s` no longer has open. */
function watched(s: InlineState, watch: Watch): void {
  if (!s.bold) watch.bold = false;
  if (!s.italic) watch.italic = false;
  if (!s.strike) watch.strike = false;
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
