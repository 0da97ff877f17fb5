// A fenced code block's lines coloured by the language its fence names (stream.ts): keywords,
// strings, comments and numbers each in a colour of their own, the rest in the code colour. A string
// or block comment left open at a line's end goes on on the next line. As with the inline part, only
// what the next characters decide is held (a word or number at a chunk's end, a quote that may be
// the first of three, a / that may open a comment), so the colours never depend on the chunks.
import { CODE, DIM, type Put } from "./inline.ts";

export const KEYWORD = "35";
export const STRING = "32";
export const NUMBER = "33";
const COMMENT = DIM;

/** A span from `open` to `close` ("": to the line's end). `escapes`: a backslash escapes the
 * character after it; `lines`: it may go on past a line's end, which otherwise ends it. */
type Span = { open: string; close: string; style: string; escapes: boolean; lines: boolean };

type Grammar = {
  keywords: ReadonlySet<string>;
  /** Looked for in order: an opener that starts a longer one comes after it (""" before "). */
  spans: readonly Span[];
  /** Whether ' opens a character literal only when it closes two or three characters on ('x',
   * '\n'), and is text otherwise (Rust's lifetimes: &'a str). */
  charQuote?: boolean;
  /** Whether a # opens a comment only at a word's start (a shell's, not the one in $#). */
  hashStartsWord?: boolean;
};

/** Where a block's colouring is: its grammar, the span open (carried from line to line) and the
 * character before the next one read. */
export type CodeState = { grammar: Grammar; open?: Span; prev: string };

const comment = (open: string): Span => ({ open, close: "", style: COMMENT, escapes: false, lines: false });
const BLOCK_COMMENT: Span = { open: "/*", close: "*/", style: COMMENT, escapes: false, lines: true };
const quoted = (quote: string, lines = false, escapes = true): Span => ({ open: quote, close: quote, style: STRING, escapes, lines });
const words = (list: string) => new Set(list.split(" "));

const JS: Grammar = {
  keywords: words(
    "async await break case catch class const continue debugger default delete do else enum export extends false finally for from function if implements import in instanceof interface let new null of private protected public readonly return static super switch this throw true try type typeof undefined var void while with yield",
  ),
  spans: [comment("//"), BLOCK_COMMENT, quoted('"'), quoted("'"), quoted("`", true)],
};
const JSON_DATA: Grammar = { keywords: words("true false null"), spans: [comment("//"), BLOCK_COMMENT, quoted('"')] };
const GO: Grammar = {
  keywords: words("break case chan const continue default defer else fallthrough false for func go goto if import interface iota map nil package range return select struct switch true type var"),
  spans: [comment("//"), BLOCK_COMMENT, quoted('"'), quoted("'"), quoted("`", true, false)],
};
const RUST: Grammar = {
  keywords: words("as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while"),
  spans: [comment("//"), BLOCK_COMMENT, quoted('"', true)],
  charQuote: true,
};
const PYTHON: Grammar = {
  keywords: words("False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield"),
  spans: [comment("#"), quoted('"""', true), quoted("'''", true), quoted('"'), quoted("'")],
};
const SHELL: Grammar = {
  keywords: words("case declare do done elif else esac export fi for function if in local readonly return select then until while"),
  spans: [comment("#"), quoted('"', true), quoted("'", true, false)],
  hashStartsWord: true,
};

const GRAMMARS: Record<string, Grammar> = {
  ...Object.fromEntries(["ts", "typescript", "tsx", "mts", "cts", "js", "javascript", "jsx", "mjs", "cjs"].map((name) => [name, JS])),
  ...Object.fromEntries(["json", "jsonc", "json5"].map((name) => [name, JSON_DATA])),
  ...Object.fromEntries(["go", "golang"].map((name) => [name, GO])),
  ...Object.fromEntries(["rust", "rs"].map((name) => [name, RUST])),
  ...Object.fromEntries(["python", "py", "python3"].map((name) => [name, PYTHON])),
  ...Object.fromEntries(["sh", "bash", "shell", "zsh"].map((name) => [name, SHELL])),
};

/** The colouring of a block whose fence says `info` (```ts): undefined for a language not known. */
export function codeState(info: string): CodeState | undefined {
  const grammar = GRAMMARS[info.split(/[\s{,]/)[0].toLowerCase()];
  return grammar && { grammar, prev: "\n" };
}

const WORD = /^[A-Za-z_$][\w$]*/;
const NUMERAL = /^(?:0[xXoObB][\da-fA-F_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)\w*/;
/** How far past a number's end the characters may still make it longer (1.5, 1e+5). */
const NUMERAL_REACH = 3;
/** What may come right before a shell comment's #. */
const WORD_BREAK = /[\s;|&()]/;

/** Puts what can be coloured of `line` (a code line without its "\n", or what is left of it) from
 * `state`; `complete`: the line ends where `line` does. Answers how far it went: the rest waits for
 * more of the line. */
export function colourCode(line: string, complete: boolean, state: CodeState, put: Put): number {
  const g = state.grammar;
  const emit = (end: number, style: string) => {
    if (end <= i) return;
    put(line.slice(i, end), style);
    state.prev = line[end - 1];
    i = end;
  };
  let i = 0;
  while (i < line.length) {
    if (state.open) {
      const { end, closed } = spanEnd(line, i, state.open, complete);
      emit(end, state.open.style);
      if (!closed) break;
      state.open = undefined;
      continue;
    }
    const rest = line.slice(i);
    if (!complete && g.spans.some((span) => span.open.length > rest.length && span.open.startsWith(rest))) break;
    const span = g.spans.find((s) => rest.startsWith(s.open) && (s.open !== "#" || !g.hashStartsWord || WORD_BREAK.test(state.prev)));
    if (span) {
      state.open = span;
      emit(i + span.open.length, span.style);
      continue;
    }
    if (rest[0] === "'" && g.charQuote) {
      if (rest.length < 3 && !complete) break;
      if (rest[1] === "\\" || rest[2] === "'") {
        state.open = quoted("'");
        emit(i + 1, STRING);
      } else emit(i + 1, CODE);
      continue;
    }
    const token = WORD.exec(rest) ?? NUMERAL.exec(rest);
    if (token) {
      const number = !WORD.test(rest);
      const reach = number ? NUMERAL_REACH : 0;
      if (!complete && token[0].length + reach >= rest.length) break;
      emit(i + token[0].length, number ? NUMBER : g.keywords.has(token[0]) ? KEYWORD : CODE);
      continue;
    }
    emit(i + 1, CODE);
  }
  if (complete) {
    if (state.open && !state.open.lines) state.open = undefined;
    state.prev = "\n";
  }
  return i;
}

/** How far from `i` the open `span` goes in `line`, and whether it closes there; short of an escape
 * or of what may be the start of its close at the end of a line that goes on. */
function spanEnd(line: string, i: number, span: Span, complete: boolean): { end: number; closed: boolean } {
  if (!span.close) return { end: line.length, closed: false };
  for (let j = i; j < line.length; j++) {
    if (span.escapes && line[j] === "\\") {
      if (j + 1 === line.length) return { end: complete ? line.length : j, closed: false };
      j++;
      continue;
    }
    if (line.startsWith(span.close, j)) return { end: j + span.close.length, closed: true };
    if (!complete && span.close.startsWith(line.slice(j))) return { end: j, closed: false };
  }
  return { end: line.length, closed: false };
}
