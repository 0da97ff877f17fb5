// Vim mode of the chat's prompt, as Claude Code's `/vim` has it: a pure state machine of the prompt
// (its lines joined by "\n") and the cursor, one key in, the next state out. editor.ts
// plugs it into the line editor. In insert mode the line editor takes the keys (they are only
// recorded here, for `.`); in normal mode this takes them: motions with counts, the operators d c y
// with motions and text objects, x X D C s S r ~ J >> << p P Y, u and Ctrl+R on an undo stack of its own,
// `.` (the last change again), i a I A o O. Keys are characters, or "Escape", "Backspace", "C-r".
import { clusters } from "../../display/terminal-text.ts";
import { charsAfter, charsBefore, clampNormal, findOnLine, firstNonBlank, lineEnd, lineStart, nextWordStart, prevWordStart, textObject, wordEnd, type Target } from "./text.ts";

export type VimMode = "insert" | "normal";
type Snapshot = { text: string; cursor: number };

export type Vim = {
  mode: VimMode;
  text: string;
  cursor: number;
  /** The keys of the normal-mode command being typed ("2d", "f"…). */
  pending: string[];
  /** What d, c, y, x… took last, and p and P put back. */
  register: { text: string; linewise: boolean };
  undo: Snapshot[];
  redo: Snapshot[];
  /** The last f F t T, which ; and , repeat. */
  lastFind?: { how: string; char: string };
  /** The keys of the last change, Esc included when it typed text, which `.` repeats. */
  lastChange?: string[];
  /** The keys of the change under way in insert mode (its command, then what is typed). */
  changing?: string[];
};

/** Up or Down for the line editor (j or k with no line of the prompt that way: the history). */
export type VimEffect = "up" | "down";

export function createVim(mode: VimMode = "insert", text = "", cursor = text.length): Vim {
  return { mode, text, cursor, pending: [], register: { text: "", linewise: false }, undo: [], redo: [] };
}

/** What typing `key` in insert mode adds to the change under way, the line editor having put it in. */
export function recordInsert(vim: Vim, key: string): Vim {
  return vim.changing ? { ...vim, changing: [...vim.changing, key] } : vim;
}

export function vimKey(vim: Vim, key: string): { vim: Vim; effect?: VimEffect } {
  if (vim.mode === "insert") return { vim: insertKey(vim, key) };
  if (key === "Escape") return { vim: { ...vim, pending: [] } };
  const keys = [...vim.pending, key];
  const command = parse(keys);
  if (command === "more") return { vim: { ...vim, pending: keys } };
  const idle = { ...vim, pending: [] };
  if (command === "bad") return { vim: idle };
  if (command.key === ".") return { vim: repeat(idle) };
  const done = run(idle, command);
  if (!done) return { vim: idle };
  if ("effect" in done) return { vim: idle, effect: done.effect };
  let next = done;
  const undoing = command.key === "u" || command.key === "C-r";
  if (!undoing && (next.text !== vim.text || next.mode === "insert")) next = { ...next, undo: [...vim.undo, { text: vim.text, cursor: vim.cursor }], redo: [] };
  if (CHANGES.has(command.op ?? command.key) && command.op !== "y") {
    if (next.mode === "insert") next = { ...next, changing: keys };
    else next = { ...next, lastChange: keys };
  }
  return { vim: next };
}

function insertKey(vim: Vim, key: string): Vim {
  if (key === "Escape") {
    const start = lineStart(vim.text, vim.cursor);
    const top = vim.undo.at(-1);
    // An insert that changed nothing leaves nothing to undo.
    const undo = top && top.text === vim.text ? vim.undo.slice(0, -1) : vim.undo;
    const lastChange = vim.changing ? [...vim.changing, "Escape"] : vim.lastChange;
    return { ...vim, mode: "normal", cursor: charsBefore(vim.text, vim.cursor, 1, start), undo, lastChange, changing: undefined };
  }
  if (key === "Backspace") {
    if (vim.cursor === 0) return vim;
    return recordInsert({ ...vim, text: vim.text.slice(0, vim.cursor - 1) + vim.text.slice(vim.cursor), cursor: vim.cursor - 1 }, key);
  }
  if (key.length === 0 || /^[\x00-\x1f\x7f]$/.test(key) || key === "C-r") return vim;
  return recordInsert({ ...vim, text: vim.text.slice(0, vim.cursor) + key + vim.text.slice(vim.cursor), cursor: vim.cursor + key.length }, key);
}

/** The keys that change the prompt (`.` repeats the last of them), an operator's by its letter. */
const CHANGES = new Set(["d", "c", "x", "X", "D", "C", "s", "S", "r", "~", "J", ">>", "<<", "p", "P", "i", "a", "I", "A", "o", "O"]);

type Command = { key: string; count: number; counted: boolean; op?: string; char?: string; object?: string; around?: boolean };

function parse(keys: string[]): Command | "more" | "bad" {
  let i = 0;
  const digits = () => {
    let d = "";
    while (i < keys.length && /^[0-9]$/.test(keys[i]) && !(d === "" && keys[i] === "0")) d += keys[i++];
    return d;
  };
  const first = digits();
  if (i >= keys.length) return "more";
  const key = keys[i++];
  const count = Number(first || 1);
  if (key === "d" || key === "c" || key === "y") {
    const second = digits();
    if (i >= keys.length) return "more";
    const motion = keys[i++];
    const n = count * Number(second || 1);
    const counted = first !== "" || second !== "";
    if (motion === key) return { key: "line", op: key, count: n, counted };
    if (motion === "i" || motion === "a" || "fFtTg".includes(motion)) {
      if (i >= keys.length) return "more";
      if (motion === "g") return keys[i] === "g" ? { key: "gg", op: key, count: n, counted } : "bad";
      if (motion === "i" || motion === "a") return { key: "object", op: key, object: keys[i], around: motion === "a", count: n, counted };
      return { key: motion, op: key, char: keys[i], count: n, counted };
    }
    return { key: motion, op: key, count: n, counted };
  }
  if (key === ">" || key === "<") {
    if (i >= keys.length) return "more";
    return keys[i] === key ? { key: key + key, count, counted: first !== "" } : "bad";
  }
  if (key.length === 1 && "fFtTrg".includes(key)) {
    if (i >= keys.length) return "more";
    if (key === "g") return keys[i] === "g" ? { key: "gg", count, counted: first !== "" } : "bad";
    return { key, char: keys[i], count, counted: first !== "" };
  }
  return { key, count, counted: first !== "" };
}

/** Runs `command` (no operator's range left unfinished); undefined when it cannot be done. */
function run(vim: Vim, c: Command): Vim | { effect: VimEffect } | undefined {
  const { text, cursor } = vim;
  const start = lineStart(text, cursor);
  const end = lineEnd(text, cursor);
  const insert = (at: number, t = text): Vim => ({ ...vim, text: t, cursor: at, mode: "insert" });
  switch (c.key) {
    case "i": return insert(cursor);
    case "a": return insert(charsAfter(text, cursor, 1, end));
    case "I": return insert(firstNonBlank(text, cursor));
    case "A": return insert(end);
    case "o": return insert(end + 1, `${text.slice(0, end)}\n${text.slice(end)}`);
    case "O": return insert(start, `${text.slice(0, start)}\n${text.slice(start)}`);
    case "x": return start === end ? undefined : operate(vim, "d", cursor, charsAfter(text, cursor, c.count, end), false);
    case "X": return cursor === start ? undefined : operate(vim, "d", charsBefore(text, cursor, c.count, start), cursor, false);
    case "D": return operate(vim, "d", cursor, end, false);
    case "C": return operate(vim, "c", cursor, end, false);
    case "s": return operate(vim, "c", cursor, charsAfter(text, cursor, c.count, end), false);
    case "S": return run(vim, { ...c, key: "line", op: "c" });
    case "Y": return run(vim, { ...c, key: "line", op: "y" });
    case "line": {
      const last = lineAfter(text, cursor, c.count - 1);
      return last === undefined ? undefined : operate(vim, c.op!, cursor, last, true);
    }
    case "r": {
      const to = charsAfter(text, cursor, c.count, end);
      if (clusters(text.slice(cursor, to)).length < c.count || clusters(c.char!).length !== 1) return undefined;
      const t = text.slice(0, cursor) + c.char!.repeat(c.count) + text.slice(to);
      return { ...vim, text: t, cursor: cursor + (c.count - 1) * c.char!.length };
    }
    case "~": {
      const to = charsAfter(text, cursor, c.count, end);
      const swapped = [...text.slice(cursor, to)].map((ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())).join("");
      const t = text.slice(0, cursor) + swapped + text.slice(to);
      return { ...vim, text: t, cursor: clampNormal(t, cursor + swapped.length) };
    }
    case "J": return join(vim, Math.max(1, c.count - 1));
    case ">>":
    case "<<": return shift(vim, c.key === ">>", c.count);
    case "p":
    case "P": return put(vim, c.key === "p", c.count);
    case "u":
    case "C-r": {
      const [from, to] = c.key === "u" ? ["undo", "redo"] as const : ["redo", "undo"] as const;
      const back = vim[from].at(-1);
      if (!back) return undefined;
      return { ...vim, ...back, cursor: clampNormal(back.text, back.cursor), [from]: vim[from].slice(0, -1), [to]: [...vim[to], { text, cursor }] };
    }
    case "object": {
      const range = textObject(text, cursor, c.object!, c.around!);
      return range && operate(vim, c.op!, range[0], range[1], false);
    }
  }
  const found = ";,fFtT".includes(c.key) ? findTarget(vim, c) : undefined;
  const target = found ? found.target : motion(text, cursor, c);
  if (target === undefined) return undefined;
  const withFind = found ? { ...vim, lastFind: found.lastFind } : vim;
  if (typeof target === "string") return c.op ? undefined : { effect: target };
  if (!c.op) return { ...withFind, cursor: clampNormal(text, target.to) };
  if (target.linewise) return operate(withFind, c.op, cursor, target.to, true);
  const [from, to] = target.to < cursor ? [target.to, cursor] : [cursor, target.inclusive ? charsAfter(text, target.to, 1) : target.to];
  return operate(withFind, c.op, from, to, false);
}

/** The start of the line `lines` below the one `at` is on, or undefined when there are fewer. */
function lineAfter(text: string, at: number, lines: number): number | undefined {
  let i = at;
  for (let n = 0; n < lines; n++) {
    const end = lineEnd(text, i);
    if (end === text.length) return undefined;
    i = end + 1;
  }
  return i;
}

function motion(text: string, cursor: number, c: Command): Target | VimEffect | undefined {
  const start = lineStart(text, cursor);
  const end = lineEnd(text, cursor);
  let to = cursor;
  switch (c.key) {
    case "h":
      return cursor === start ? undefined : { to: charsBefore(text, cursor, c.count, start) };
    case "l":
      return c.op ? { to: charsAfter(text, cursor, c.count, end) } : charsAfter(text, cursor, 1, end) >= end ? undefined : { to: charsAfter(text, cursor, c.count, end) };
    case "j":
    case "k": {
      const column = cursor - start;
      let line = start;
      for (let n = 0; n < c.count; n++) {
        const next = c.key === "j" ? (lineEnd(text, line) === text.length ? undefined : lineEnd(text, line) + 1) : line === 0 ? undefined : lineStart(text, line - 1);
        if (next === undefined) break;
        line = next;
      }
      if (line === start) return c.key === "j" ? "down" : "up";
      return { to: Math.min(line + column, Math.max(line, lineEnd(text, line) - (c.op ? 0 : 1))), linewise: true };
    }
    case "w":
    case "W":
      // cw changes to the word's end, as ce does.
      if (c.op === "c" && /\S/.test(text[cursor] ?? "")) return motion(text, cursor, { ...c, key: c.key === "w" ? "e" : "E" });
      for (let n = 0; n < c.count; n++) {
        const next = nextWordStart(text, to, c.key === "W");
        // The operator stops at the end of the line its last word is on.
        to = c.op && n === c.count - 1 ? Math.min(next, lineEnd(text, to)) : next;
      }
      return { to };
    case "b":
    case "B":
      for (let n = 0; n < c.count; n++) to = prevWordStart(text, to, c.key === "B");
      return { to };
    case "e":
    case "E":
      for (let n = 0; n < c.count; n++) to = wordEnd(text, to, c.key === "E");
      return { to, inclusive: true };
    case "0":
      return { to: start };
    case "^":
      return { to: firstNonBlank(text, cursor) };
    case "$": {
      const line = lineAfter(text, cursor, c.count - 1) ?? cursor;
      return { to: lineEnd(text, line), inclusive: false };
    }
    case "gg":
    case "G": {
      const lines = text.split("\n").length;
      const n = c.counted ? Math.min(c.count, lines) : c.key === "G" ? lines : 1;
      const line = lineAfter(text, 0, n - 1) ?? 0;
      return { to: firstNonBlank(text, line), linewise: true };
    }
  }
  return undefined;
}

/** f F t T, and ; and , (the last of them again, the other way for ,). */
function findTarget(vim: Vim, c: Command): { target: Target; lastFind: Vim["lastFind"] } | undefined {
  let find = c.char !== undefined ? { how: c.key, char: c.char } : vim.lastFind;
  if (!find) return undefined;
  const lastFind = find;
  if (c.key === ",") find = { ...find, how: { f: "F", F: "f", t: "T", T: "t" }[find.how]! };
  const to = findOnLine(vim.text, vim.cursor, find.how, find.char, c.count, c.char === undefined);
  if (to === undefined) return undefined;
  return { target: { to, inclusive: find.how === "f" || find.how === "t" }, lastFind };
}

/** d, c or y over [from, to) (`linewise`: all the lines from the one `from` is on to the one `to` is on). */
function operate(vim: Vim, op: string, from: number, to: number, linewise: boolean): Vim {
  const { text } = vim;
  if (linewise) {
    const [a, b] = from <= to ? [from, to] : [to, from];
    const s = lineStart(text, a);
    const e = lineEnd(text, b);
    const register = { text: text.slice(s, e), linewise: true };
    if (op === "y") return { ...vim, register, cursor: Math.min(vim.cursor, s) === s && from > to ? s : vim.cursor };
    if (op === "c") return { ...vim, register, text: text.slice(0, s) + text.slice(e), cursor: s, mode: "insert" };
    const rest = e < text.length ? text.slice(0, s) + text.slice(e + 1) : text.slice(0, Math.max(0, s - 1));
    const at = Math.min(s, rest.length);
    return { ...vim, register, text: rest, cursor: clampNormal(rest, firstNonBlank(rest, e < text.length ? at : lineStart(rest, at))) };
  }
  const register = { text: text.slice(from, to), linewise: false };
  if (op === "y") return { ...vim, register, cursor: from };
  const rest = text.slice(0, from) + text.slice(to);
  if (op === "c") return { ...vim, register, text: rest, cursor: from, mode: "insert" };
  return { ...vim, register, text: rest, cursor: clampNormal(rest, from) };
}

function put(vim: Vim, after: boolean, count: number): Vim | undefined {
  const { text, cursor, register } = vim;
  if (!register.text && !register.linewise) return undefined;
  const many = Array(count).fill(register.text).join(register.linewise ? "\n" : "");
  if (register.linewise) {
    const at = after ? lineEnd(text, cursor) : lineStart(text, cursor);
    const t = after ? `${text.slice(0, at)}\n${many}${text.slice(at)}` : `${text.slice(0, at)}${many}\n${text.slice(at)}`;
    return { ...vim, text: t, cursor: firstNonBlank(t, after ? at + 1 : at) };
  }
  const at = after ? charsAfter(text, cursor, 1, lineEnd(text, cursor)) : cursor;
  const t = text.slice(0, at) + many + text.slice(at);
  return { ...vim, text: t, cursor: charsBefore(t, at + many.length, 1, at) };
}

/** J: `joins` line breaks after the cursor's line become one space (none before a ")" or an empty line). */
function join(vim: Vim, joins: number): Vim | undefined {
  let text = vim.text;
  let cursor = vim.cursor;
  for (let n = 0; n < joins; n++) {
    const end = lineEnd(text, cursor);
    if (end === text.length) return n === 0 ? undefined : { ...vim, text, cursor };
    let next = end + 1;
    while (next < text.length && /[ \t]/.test(text[next])) next++;
    const space = next === lineEnd(text, next) || text[next] === ")" || end === lineStart(text, end) ? "" : " ";
    text = text.slice(0, end) + space + text.slice(next);
    cursor = end;
  }
  return { ...vim, text, cursor };
}

/** The width >> adds at a line's start, and << takes off (or a tab). */
const SHIFT = "  ";

/** >> and <<: `lines` lines from the cursor's on indented, or dedented, by SHIFT. */
function shift(vim: Vim, indent: boolean, lines: number): Vim {
  const start = lineStart(vim.text, vim.cursor);
  const end = lineEnd(vim.text, lineAfter(vim.text, start, lines - 1) ?? vim.text.length);
  const shifted = vim.text
    .slice(start, end)
    .split("\n")
    .map((line) => (indent ? (line ? SHIFT + line : line) : line.replace(/^(\t| {1,2})/, "")))
    .join("\n");
  const text = vim.text.slice(0, start) + shifted + vim.text.slice(end);
  return { ...vim, text, cursor: clampNormal(text, firstNonBlank(text, start)) };
}

/** `.`: the last change's keys again, from normal mode. */
function repeat(vim: Vim): Vim {
  if (!vim.lastChange) return vim;
  let next = vim;
  for (const key of vim.lastChange) next = vimKey(next, key).vim;
  return { ...next, lastChange: vim.lastChange, changing: undefined };
}
