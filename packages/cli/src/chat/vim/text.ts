// Where vim's motions and text objects land in the chat's prompt (vim.ts): pure functions of the
// prompt's text (its lines joined by "\n") and an index in it. Indexes are UTF-16 code units, as the
// line editor's cursor is; a character is a grapheme cluster, as the terminal draws it (an emoji
// sequence is one, as in the line editor, chat/input/input-clusters.ts). Vim's "word" is a run of letters, digits and _ or a run of other
// non-blank characters, its "WORD" (`big`) a run of non-blank characters.

/** Where a motion goes: `inclusive` (the character there is part of an operator's range),
 * `linewise` (an operator takes whole lines). */
import { clusters } from "../../display/terminal-text.ts";

export type Target = { to: number; inclusive?: boolean; linewise?: boolean };

/** The index `n` characters after `at`, or `limit` if it comes first. */
export function charsAfter(text: string, at: number, n: number, limit = text.length): number {
  const rest = clusters(text.slice(at, limit));
  let i = at;
  for (let k = 0; k < n && k < rest.length; k++) i += rest[k].length;
  return i;
}

/** The index `n` characters before `at`, or `limit` if it comes first. */
export function charsBefore(text: string, at: number, n: number, limit = 0): number {
  const before = clusters(text.slice(limit, at));
  let i = at;
  for (let k = 0; k < n && k < before.length; k++) i -= before[before.length - 1 - k].length;
  return i;
}

export function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

export function lineEnd(text: string, at: number): number {
  const end = text.indexOf("\n", at);
  return end === -1 ? text.length : end;
}

/** The first non-blank character of the line `at` is on (its end, when all blank). */
export function firstNonBlank(text: string, at: number): number {
  let i = lineStart(text, at);
  const end = lineEnd(text, at);
  while (i < end && /[ \t]/.test(text[i])) i++;
  return i;
}

/** Where the cursor may rest in normal mode on the line `at` is on: on a character, not after the last. */
export function clampNormal(text: string, at: number): number {
  const start = lineStart(text, at);
  return Math.max(start, Math.min(at, charsBefore(text, lineEnd(text, at), 1, start)));
}

function kind(char: string | undefined, big: boolean): number {
  if (char === undefined || /\s/.test(char)) return 0;
  return big || /\w/.test(char) ? 1 : 2;
}

export function nextWordStart(text: string, at: number, big: boolean): number {
  let i = at;
  const k = kind(text[i], big);
  if (k !== 0) while (i < text.length && kind(text[i], big) === k) i++;
  while (i < text.length && kind(text[i], big) === 0) i++;
  return i;
}

export function prevWordStart(text: string, at: number, big: boolean): number {
  let i = at - 1;
  while (i > 0 && kind(text[i], big) === 0) i--;
  const k = kind(text[i], big);
  while (i > 0 && kind(text[i - 1], big) === k) i--;
  return Math.max(0, i);
}

export function wordEnd(text: string, at: number, big: boolean): number {
  let i = at + 1;
  while (i < text.length && kind(text[i], big) === 0) i++;
  const k = kind(text[i], big);
  while (i + 1 < text.length && kind(text[i + 1], big) === k) i++;
  return Math.min(i, Math.max(0, text.length - 1));
}

/** f F t T: the `count`th `char` on the line after (f t) or before (F T) `at`; t and T stop one
 * short. `again` (; and ,): a t or T steps over the character it stopped next to. */
export function findOnLine(text: string, at: number, how: string, char: string, count: number, again = false): number | undefined {
  const forward = how === "f" || how === "t";
  const start = lineStart(text, at);
  const end = lineEnd(text, at);
  let i = at + (!again ? 0 : how === "t" ? 1 : how === "T" ? -1 : 0);
  for (let n = 0; n < count; n++) {
    if (!forward && i - 1 < start) return undefined;
    i = forward ? text.indexOf(char, i + 1) : text.lastIndexOf(char, i - 1);
    if (i === -1 || i >= end || i < start) return undefined;
  }
  if (how === "t") return i - 1;
  if (how === "T") return i + 1;
  return i;
}

/** The range [from, to) of the text object `object` ("w", "W", a quote or a bracket) around `at`,
 * inside (`around` false) or around it. */
export function textObject(text: string, at: number, object: string, around: boolean): [number, number] | undefined {
  if (object === "w" || object === "W") return wordObject(text, at, object === "W", around);
  if (object === '"' || object === "'" || object === "`") return quoteObject(text, at, object, around);
  const pair = BRACKETS[object];
  return pair && bracketObject(text, at, pair[0], pair[1], around);
}

const BRACKETS: Record<string, [string, string]> = {
  "(": ["(", ")"], ")": ["(", ")"], b: ["(", ")"],
  "[": ["[", "]"], "]": ["[", "]"],
  "{": ["{", "}"], "}": ["{", "}"], B: ["{", "}"],
  "<": ["<", ">"], ">": ["<", ">"],
};

function wordObject(text: string, at: number, big: boolean, around: boolean): [number, number] | undefined {
  const start = lineStart(text, at);
  const end = lineEnd(text, at);
  if (start === end) return undefined;
  const k = kind(text[at], big);
  let from = at;
  let to = at + 1;
  while (from > start && kind(text[from - 1], big) === k) from--;
  while (to < end && kind(text[to], big) === k) to++;
  if (!around) return [from, to];
  // aw: the word and the blanks after it (else those before it); on blanks, the blanks and the word after.
  if (k === 0) {
    const next = to < end ? kind(text[to], big) : 0;
    while (to < end && kind(text[to], big) === next && next !== 0) to++;
    return [from, to];
  }
  let after = to;
  while (after < end && kind(text[after], big) === 0) after++;
  if (after > to) return [from, after];
  while (from > start && kind(text[from - 1], big) === 0) from--;
  return [from, to];
}

function quoteObject(text: string, at: number, quote: string, around: boolean): [number, number] | undefined {
  const start = lineStart(text, at);
  const end = lineEnd(text, at);
  const quotes: number[] = [];
  for (let i = start; i < end; i++) if (text[i] === quote && text[i - 1] !== "\\") quotes.push(i);
  // Quotes pair up from the line's start; with the cursor before them all, the first pair.
  for (let q = 0; q + 1 < quotes.length; q += 2) {
    const [open, close] = [quotes[q], quotes[q + 1]];
    if (at <= close) return around ? [open, close + 1] : [open + 1, close];
  }
  return undefined;
}

function bracketObject(text: string, at: number, open: string, close: string, around: boolean): [number, number] | undefined {
  let from = -1;
  let depth = 0;
  for (let i = text[at] === close ? at - 1 : at; i >= 0; i--) {
    if (text[i] === close && i !== at) depth++;
    else if (text[i] === open) {
      if (depth === 0) {
        from = i;
        break;
      }
      depth--;
    }
  }
  if (from === -1) return undefined;
  depth = 0;
  for (let i = from + 1; i < text.length; i++) {
    if (text[i] === open) depth++;
    else if (text[i] === close) {
      if (depth === 0) return around ? [from, i + 1] : [from + 1, i];
      depth--;
    }
  }
  return undefined;
}
