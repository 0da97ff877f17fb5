// Vim mode's keys, one table: the prompt and the cursor before (a "|" marks the cursor), the keys
// typed in normal mode, and the prompt, the cursor and the mode after.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createVim, vimKey, type Vim } from "./vim.ts";

/** "ab|c" → the text "abc", the cursor at 2. */
function at(marked: string): { text: string; cursor: number } {
  const cursor = marked.indexOf("|");
  return { text: marked.slice(0, cursor) + marked.slice(cursor + 1), cursor };
}

function marked(vim: Vim): string {
  return vim.text.slice(0, vim.cursor) + "|" + vim.text.slice(vim.cursor);
}

/** The keys of `typed`: characters, and <Esc>, <BS>, <C-r> as such. */
function keysOf(typed: string): string[] {
  return [...typed.matchAll(/<Esc>|<BS>|<C-r>|[\s\S]/gu)].map(([key]) => ({ "<Esc>": "Escape", "<BS>": "Backspace", "<C-r>": "C-r" })[key] ?? key);
}

function type(start: string, typed: string, vim = createVim("normal")): Vim {
  const { text, cursor } = at(start);
  let state: Vim = { ...vim, text, cursor };
  for (const key of keysOf(typed)) state = vimKey(state, key).vim;
  return state;
}

const cases: [string, string, string, ("insert" | "normal")?][] = [
  // motions
  ["hel|lo", "h", "he|llo"],
  ["hel|lo", "2h", "h|ello"],
  ["hel|lo", "l", "hell|o"],
  ["hell|o", "l", "hell|o"],
  ["|one two three", "w", "one |two three"],
  ["|one two three", "2w", "one two |three"],
  ["|a.b c", "w", "a|.b c"],
  ["|a.b c", "W", "a.b |c"],
  ["one two thr|ee", "b", "one two |three"],
  ["one two thr|ee", "2b", "one |two three"],
  ["|one two", "e", "on|e two"],
  ["|one two", "2e", "one tw|o"],
  ["  ab|c", "0", "|  abc"],
  ["  ab|c", "^", "  |abc"],
  ["|abc", "$", "ab|c"],
  ["a\nb|c\nd", "gg", "|a\nbc\nd"],
  ["|a\nbc\n  d", "G", "a\nbc\n  |d"],
  ["|a\nbc\nd", "2G", "a\n|bc\nd"],
  ["|a,b,c", "f,", "a|,b,c"],
  ["|a,b,c", "2f,", "a,b|,c"],
  ["|a,b,c", "t,", "|a,b,c"],
  ["|a,b,c", "tb", "a|,b,c"],
  ["a,b,|c", "F,", "a,b|,c"],
  ["a,b,|c", "T,", "a,b,|c"],
  ["a,b,|c", "Ta", "a|,b,c"],
  ["|a,b,c", "f,;", "a,b|,c"],
  ["|a,b,c", "f,;,", "a|,b,c"],
  ["|a,b,c", "t,;", "a,|b,c"],
  ["ab|c\nde", "j", "abc\nd|e"],
  ["abc\nd|e", "k", "a|bc\nde"],
  // deleting and changing
  ["a|bc", "x", "a|c"],
  ["a|bcd", "2x", "a|d"],
  ["ab|c", "X", "a|c"],
  ["|one two", "dw", "|two"],
  ["|one two three", "2dw", "|three"],
  ["|one two three", "d2w", "|three"],
  ["one |two", "dw", "one| "],
  ["one t|wo", "diw", "one| "],
  ["one t|wo", "daw", "on|e"],
  ["one |two three", "daw", "one |three"],
  ["x \"he|llo\" y", "di\"", "x \"|\" y"],
  ["x \"he|llo\" y", "da\"", "x | y"],
  ["f(a, |b)", "di(", "f(|)"],
  ["f(a, |b)", "da(", "|f"],
  ["f(a, (b|))", "dib", "f(a, (|))"],
  ["[1, |2]", "di[", "[|]"],
  ["{a |b}", "ca{X<Esc>", "|X"],
  ["ab|cd", "d$", "a|b"],
  ["ab|cd", "D", "a|b"],
  ["ab|cd", "d0", "|cd"],
  ["a\nb|c\nd", "dd", "a\n|d"],
  ["a\nb|c\nd", "2dd", "|a"],
  ["a\n|b", "dd", "|a"],
  ["a|,b,c", "dt,", "a|,c"],
  ["|a,b,c", "dt,", "|,b,c"],
  ["|a,b,c", "df,", "|b,c"],
  ["|a\nb\nc", "dj", "|c"],
  ["a\nb\n|c", "dgg", "|"],
  ["|one two", "cwX<Esc>", "|X two"],
  ["one |two", "cbX<Esc>", "|Xtwo"],
  ["ab|cd", "CX<Esc>", "ab|X"],
  ["ab|cd", "c0X<Esc>", "|Xcd"],
  ["a\nb|c\nd", "ccX<Esc>", "a\n|X\nd"],
  ["a\nb|c\nd", "SX<Esc>", "a\n|X\nd"],
  ["a|bc", "sX<Esc>", "a|Xc"],
  ["a|bc", "2sX<Esc>", "a|X"],
  ["a|bc", "rX", "a|Xc"],
  ["a|bc", "2rX", "aX|X"],
  ["a|bc", "3rX", "a|bc"],
  ["a|Bc", "~", "ab|c"],
  ["|aBc", "3~", "Ab|C"],
  ["a|b\n  cd", "J", "ab| cd"],
  ["a|b\ncd\nef", "3J", "ab cd| ef"],
  ["a|b\ncd", ">>", "  |ab\ncd"],
  ["a|b\ncd", "2>>", "  |ab\n  cd"],
  ["   a|b", "<<", " |ab"],
  ["\ta|b", "<<", "|ab"],
  ["a|b", ">>.", "    |ab"],
  ["a|b", "><", "a|b"],
  // yanking and putting
  ["|one two", "yw$p", "one twoone| "],
  ["|one two", "ywP", "one| one two"],
  ["a|b\ncd", "yyjp", "ab\ncd\n|ab"],
  ["a|b\ncd", "ddp", "cd\n|ab"],
  ["a|b\ncd", "YP", "|ab\nab\ncd"],
  ["a|bc", "xp", "ac|b"],
  ["a|bc", "x2P", "ab|bc"],
  // undo, redo, repeat
  ["a|bc", "xu", "a|bc"],
  ["a|bc", "xxuu", "a|bc"],
  ["a|bc", "xu<C-r>", "a|c"],
  ["a|bcd", "x.", "a|d"],
  ["|a b c d", "dw.", "|c d"],
  ["|one two", "cwX<Esc>w.", "X |X"],
  ["|ab", "iX<Esc>u", "|ab"],
  ["|ab", "AX<Esc>0.", "abX|X"],
  // insert
  ["a|bc", "iX", "aX|bc", "insert"],
  ["a|bc", "aX", "abX|c", "insert"],
  ["  a|bc", "IX", "  X|abc", "insert"],
  ["a|bc", "AX", "abcX|", "insert"],
  ["a|b\ncd", "oX", "ab\nX|\ncd", "insert"],
  ["ab\nc|d", "OX", "ab\nX|\ncd", "insert"],
  ["ab|c", "aX<BS>", "abc|", "insert"],
  ["ab|c", "i<Esc>", "a|bc"],
  // an emoji sequence is one character
  ["a|👍🏽b", "x", "a|b"],
  ["a👍🏽|b", "X", "a|b"],
  ["a|👍🏽b", "l", "a👍🏽|b"],
  ["a👍🏽|b", "h", "a|👍🏽b"],
  ["|a👍🏽", "$", "a|👍🏽"],
  ["a|👍🏽b", "rX", "a|Xb"],
  ["a|👍🏽b", "aX<Esc>", "a👍🏽|Xb"],
  ["a|👍🏽b", "xp", "ab|👍🏽"],
  // counts and unknown keys
  ["|a b c d e f g h i j k l", "12w", "a b c d e f g h i j k |l"],
  ["a|bc", "Q", "a|bc"],
  ["a|bc", "d<Esc>x", "a|c"],
];

for (const [before, typed, after, mode = "normal"] of cases) {
  test(`${JSON.stringify(before)} ${typed} → ${JSON.stringify(after)}`, () => {
    const vim = type(before, typed);
    assert.equal(marked(vim), after);
    assert.equal(vim.mode, mode);
  });
}

test("j and k with no line that way go to the history, as Down and Up do", () => {
  const { text, cursor } = at("a|b");
  const vim = { ...createVim("normal"), text, cursor };
  assert.equal(vimKey(vim, "k").effect, "up");
  assert.equal(vimKey(vim, "j").effect, "down");
  assert.equal(vimKey({ ...vim, text: "a\nb", cursor: 0 }, "j").effect, undefined);
});

test("Esc in insert mode goes to normal mode, the cursor one back", () => {
  const vim = vimKey(createVim("insert", "abc"), "Escape").vim;
  assert.equal(vim.mode, "normal");
  assert.equal(vim.cursor, 2);
});
