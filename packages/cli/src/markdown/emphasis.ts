// Emphasis as CommonMark reads it, for the inline renderer (inline.ts): which runs of * and _ (and
// ~~) may open or close it, and which closers match which openers ("process emphasis", the rule of 3
// included), in time linear in a line's length.

export const PUNCTUATION = /[!-/:-@[-`{-~]/;
const SPACE = /\s/;
/** Brackets and quotes an emphasis may start right after, before punctuation: (*"quoted"*). */
const OPENING = /[([{"']/;
export const WORD = /[\p{L}\p{N}]/u;

export type Style = "bold" | "italic" | "strike";
export const STYLES: readonly Style[] = ["bold", "italic", "strike"];
export type Counts = Record<Style, number>;
/** How many markers the styles `counts` take: two for bold and strikethrough, one for italic. */
export const markers = (counts: Counts) => 2 * counts.bold + counts.italic + 2 * counts.strike;

/** A run of * or _ (or ~~) that may open or close emphasis, from `start` to `end` in the line
 * (`start` before where it was read from when `used` of its markers came before, printed as the
 * closers they were). `left`: how many of its markers are not matched yet; `closes`, `opens`: the
 * styles its matched markers close and open; `work`: the openers looked at for it. */
export type Run = { ch: string; start: number; end: number; used: number; open: boolean; close: boolean; left: number; closes: Counts; opens: Counts; work: number };

/** The run of `ch` from `i` to `j` (after `used` of its markers already printed), between `prev`
 * and `next`, as a delimiter run, or undefined when it can neither open nor close (it is text):
 * about as CommonMark reads it, a run before a space opens nothing, nor one between punctuation
 * (src/*.ts); a `_` inside a word (snake_case) neither opens nor closes; only ~~ strikes; in a
 * call's arguments (`call` deep), f(*args, **kwargs), stars and underscores are code, not emphasis. */
export function delimiter(ch: string, i: number, j: number, used: number, prev: string, call: number, next: string): Run | undefined {
  const n = j - i + used;
  const { left, right } = flanking(prev, next);
  const emphasis = ch !== "~" && call === 0;
  const open = ch === "~" ? n === 2 && left : emphasis && left && (ch === "*" || !WORD.test(prev));
  const close = ch === "~" ? n === 2 && right : emphasis && right && (ch === "*" || !WORD.test(next));
  if (!open && !close) return undefined;
  const none = () => ({ bold: 0, italic: 0, strike: 0 });
  return { ch, start: i - used, end: j, used, open, close, left: n - used, closes: none(), opens: none(), work: 0 };
}

/** CommonMark's "process emphasis" on a line's `runs`, in order: each closer matches the nearest
 * opener before it of its character that the rule of 3 allows and that is within `reach` of it, the
 * runs between them left as text. Answers the openers left unmatched, in order. */
export function match(runs: readonly Run[], length: number, reach: number): Run[] {
  const openers: Run[] = [];
  /** For each kind of closer (its character, whether it may open, its length mod 3), how many of
   * the openers none matches it: a closer looks no further back than that, nor past the openers
   * that are out of its reach (and so of any closer after it). */
  const bottom = new Map<string, number>();
  let far = 0;
  for (const closer of runs) {
    const kind = `${closer.ch}${closer.open}${(closer.end - closer.start) % 3}`;
    while (closer.close && closer.left > 0) {
      for (; far < openers.length && !inReach(openers[far], closer, length, reach); far++) closer.work++;
      const low = Math.max(far, bottom.get(kind) ?? 0);
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
      far = Math.min(far, openers.length);
      for (const [key, at] of bottom) if (at > openers.length) bottom.set(key, openers.length);
    }
    if (closer.open && closer.left > 0) openers.push(closer);
  }
  return openers;
}

/** Whether `closer` is within `reach` of `opener`: it ends, with the character after it, within
 * `reach` of the opener's start, or ends the line there. */
const inReach = (opener: Run, closer: Run, length: number, reach: number) => closer.end < opener.start + reach || (closer.end === opener.start + reach && closer.end === length);

/** Whether `closer` may close `opener`: the same character and, for * and _, CommonMark's rule of
 * 3 (when either run may both open and close, the two runs' lengths may not add up to a multiple of
 * 3 unless each is one: *a**b* is a**b in italic). */
function fits(opener: Run, closer: Run): boolean {
  if (opener.ch !== closer.ch) return false;
  const a = opener.end - opener.start;
  const b = closer.end - closer.start;
  return closer.ch === "~" || !((closer.open || opener.close) && b % 3 !== 0 && (a + b) % 3 === 0);
}

/** Which sides of a marker run, between `prev` and `next`, have text: left, it may open a style;
 * right, close one. */
function flanking(prev: string, next: string): { left: boolean; right: boolean } {
  return {
    left: !SPACE.test(next) && (!PUNCTUATION.test(next) || SPACE.test(prev) || OPENING.test(prev)),
    right: !SPACE.test(prev) && (!PUNCTUATION.test(prev) || SPACE.test(next) || PUNCTUATION.test(next)),
  };
}
