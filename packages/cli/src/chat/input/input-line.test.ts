import { test } from "node:test";
import assert from "node:assert/strict";
import { createInterface } from "node:readline";
import { PassThrough, Writable } from "node:stream";
import { setImmediate as tick } from "node:timers/promises";
import { keepInputLine } from "./input-line.ts";
import { renderScreen } from "../../test-screen.ts";

const WIDTH = 20;

/** A terminal WIDTH columns wide with a line editor on it; `keys` types, `chat` writes as the chat does.
 * `completing`: the editor completes, as the chat's does (it then redraws a line that a paste wraps). */
function terminal(t: { after(fn: () => unknown): void }, keepOnEnter: (line: string) => boolean = () => false, height?: number, completing = false) {
  let bytes = "";
  let writes = 0;
  // The terminal driver turns "\n" into "\r\n" (the chat writes lines as a pseudo-terminal has them).
  const screen = Object.assign(new Writable({ write: (chunk, _encoding, done) => ((bytes += String(chunk).replace(/(?<!\r)\n/g, "\r\n")), writes++, done()) }), { columns: WIDTH, rows: height, isTTY: true });
  const inputLine = keepInputLine(screen);
  const input = new PassThrough();
  const completer = completing ? (line: string): [string[], string] => [[], line] : undefined;
  const editor = createInterface({ input, output: inputLine.output, terminal: true, prompt: "", completer });
  t.after(() => editor.close());
  const close = () => editor.close();
  inputLine.attach(editor, keepOnEnter);
  const chat = inputLine.around(screen);
  return {
    inputLine,
    close,
    chat: (text: string) => chat.write(text),
    /** Types `keys` one at a time (the editor draws a pasted block in one go, without wrapping it). */
    keys: async (keys: string) => {
      for (const key of keys) {
        input.write(key);
        await tick();
      }
    },
    /** Keys that come at once, as a paste's do. */
    paste: async (keys: string) => {
      input.write(keys);
      await tick();
    },
    /** The terminal is made `columns` wide, as a resized window is. */
    resize: (columns: number) => {
      screen.columns = columns;
      screen.emit("resize");
    },
    /** The rows shown, on a terminal `columns` wide that wraps what it shows again when resized. */
    rows: (columns = WIDTH) => renderScreen(bytes, columns, height),
    /** What was written to the terminal so far. */
    written: () => bytes,
    /** How many writes reached the terminal so far (a terminal may show what it has between two). */
    writes: () => writes,
  };
}

test("a reply's line that fills its row goes on below it, the typed line kept under it", async (t) => {
  const term = terminal(t);
  term.chat("a".repeat(WIDTH));
  await term.keys("xy");
  assert.deepEqual(term.rows(), ["a".repeat(WIDTH), "xy"]);
  term.chat("b");
  term.chat("c\n");
  assert.deepEqual(term.rows(), ["a".repeat(WIDTH), "bc", "xy"]);
  await term.keys("z");
  assert.deepEqual(term.rows(), ["a".repeat(WIDTH), "bc", "xyz"]);
});

test("a typed line longer than a row, the cursor within it, is drawn again whole where it was", async (t) => {
  const term = terminal(t);
  term.chat("reply ");
  const typed = "0123456789".repeat(3);
  await term.keys(typed);
  await term.keys("\x1b[D".repeat(15));
  term.chat("goes on");
  term.chat(" and on");
  assert.deepEqual(term.rows(), ["reply goes on and on", "01234567890123456789", "0123456789"]);
  // The cursor is where it was: what is typed goes in the middle.
  await term.keys("!");
  assert.deepEqual(term.rows(), ["reply goes on and on", "012345678901234!5678", "90123456789"]);
});

test("lines held show between the reply's line and the typed line; Enter takes the typed copy off", async (t) => {
  const term = terminal(t);
  term.chat("half a line");
  await term.keys("steer me");
  term.inputLine.hold(["↳ steer: earlier"]);
  assert.deepEqual(term.rows(), ["half a line", "↳ steer: earlier", "steer me"]);
  await term.keys("\r");
  assert.deepEqual(term.rows(), ["half a line", "↳ steer: earlier"]);
  term.chat(", ended.\n");
  assert.deepEqual(term.rows(), ["half a line, ended.", "↳ steer: earlier"]);
  term.inputLine.hold([]);
  assert.deepEqual(term.rows(), ["half a line, ended."]);
});

test("a prompt entered with no run under way stays on the screen as typed", async (t) => {
  const term = terminal(t, () => true);
  term.chat("ready\n");
  await term.keys("hello\r");
  term.chat("Hi!\n");
  assert.deepEqual(term.rows(), ["ready", "hello", "Hi!"]);
});

test("the line entered is what decides whether it stays: a command stays as typed, a steer goes", async (t) => {
  const entered: string[] = [];
  const term = terminal(t, (line) => (entered.push(line), line.startsWith("/")));
  term.chat("a reply going");
  await term.keys("/cancel\r");
  await term.keys("go left\r");
  term.chat(" on.\n");
  assert.deepEqual(entered, ["/cancel", "go left"]);
  assert.deepEqual(term.rows(), ["a reply going", "/cancel", " on."]);
});

test("a chat left with a line half typed takes it off before its last words", async (t) => {
  const term = terminal(t);
  term.chat("a reply going");
  await term.keys("never sent");
  term.close();
  term.chat("\nthe run goes on\n");
  assert.deepEqual(term.rows(), ["a reply going", "the run goes on"]);
});

test("a command entered while steers are held stays above them, and each steer shows once", async (t) => {
  const term = terminal(t, (line) => line.startsWith("/"));
  term.chat("a reply going");
  term.inputLine.hold(["↳ steer: earlier"]);
  await term.keys("/model x\r");
  assert.deepEqual(term.rows(), ["a reply going", "/model x", "↳ steer: earlier"]);
  term.chat(" on");
  term.chat(".\n");
  // The chat prints the steer once the reply's line has ended.
  term.inputLine.hold([]);
  term.chat("↳ steer: earlier\n");
  assert.deepEqual(term.rows(), ["a reply going", "/model x", " on.", "↳ steer: earlier"]);
});

test("a line typed to the last column and entered leaves no blank row", async (t) => {
  const term = terminal(t, () => true);
  await term.keys(`${"x".repeat(WIDTH)}\r`);
  term.chat("next\n");
  assert.deepEqual(term.rows(), ["x".repeat(WIDTH), "next"]);
});

test("after the terminal is resized, a reply's unfinished line goes on from where it now ends", async (t) => {
  const term = terminal(t);
  term.chat("a".repeat(15));
  term.resize(10);
  await term.keys("xy");
  term.chat("b");
  assert.deepEqual(term.rows(10), ["a".repeat(10), "aaaaab", "xy"]);
  term.resize(WIDTH);
  term.chat("c\n");
  assert.deepEqual(term.rows(WIDTH), [`${"a".repeat(15)}bc`, "xy"]);
});

test("a reply's tabs go where the terminal puts them: to stops from each row's start, no further than its last column", async (t) => {
  const term = terminal(t);
  term.chat("0123456789abcdefg\tx");
  await term.keys("typed");
  term.chat("yz\n");
  assert.deepEqual(term.rows(), ["0123456789abcdefg  x", "yz", "typed"]);
  // Tab stops are counted from each row's start (a row of 20 columns is not 8s).
  term.chat(`${"r".repeat(WIDTH + 1)}\tabcdefghijklmno`);
  await term.keys("!");
  term.chat("p\n");
  assert.deepEqual(term.rows().slice(2), ["r".repeat(WIDTH), "r       abcdefghijkl", "mnop", "typed!"]);
});

test("a reply streamed while nothing is typed reaches the terminal as it is, delta by delta", async (t) => {
  const term = terminal(t);
  await term.keys("x\x7f");
  const deltas = Array.from({ length: 200 }, (_, i) => (i % 50 === 49 ? "end\n" : `w${i} `));
  // The first takes the emptied line's row off; nothing more is written around the others.
  term.chat(deltas[0]);
  const from = term.written().length;
  for (const delta of deltas.slice(1)) term.chat(delta);
  assert.equal(term.written().slice(from).replace(/\r\n/g, "\n"), deltas.slice(1).join(""));
});

test("lines pasted at once while a reply streams go, as steers, and the last one, unended, stays typed", async (t) => {
  const term = terminal(t);
  term.chat("a reply going on and on");
  await term.paste("one\rtwo\rthree is longer than a row\rfour");
  term.chat(" and on");
  assert.deepEqual(term.rows(), ["a reply going on and", " on and on", "four"]);
  await term.keys("\r");
  term.chat(".\n");
  assert.deepEqual(term.rows(), ["a reply going on and", " on and on."]);
});

test("a reply's wide characters (CJK, emoji) are written again on the rows the terminal put them", async (t) => {
  const term = terminal(t);
  // Nine wide characters and a letter take 19 columns: the tenth does not fit in the 20th.
  term.chat(`${"中".repeat(9)}a文字😀`);
  await term.keys("typed");
  term.chat("ok");
  assert.deepEqual(term.rows(), [`${"中".repeat(9)}a`, "文字😀ok", "typed"]);
  term.chat(`${"字".repeat(7)}\n`);
  assert.deepEqual(term.rows(), [`${"中".repeat(9)}a`, `文字😀ok${"字".repeat(6)}`, "字", "typed"]);
});

test("each delta of a reply streamed while a line is typed reaches the terminal in one write", async (t) => {
  const term = terminal(t);
  term.chat("a reply");
  await term.keys("typed");
  const deltas = [" goes", " on and on", " to the next row", ", ends.\n", "Another"];
  for (const delta of deltas) {
    const before = term.writes();
    term.chat(delta);
    assert.equal(term.writes() - before, 1, `writes for ${JSON.stringify(delta)}`);
  }
  assert.deepEqual(term.rows(), ["a reply goes on and", "on to the next row,", "ends.", "Another", "typed"]);
  // Held lines come and go in one write too.
  const before = term.writes();
  term.inputLine.hold(["↳ steer: left"]);
  term.inputLine.hold([]);
  assert.equal(term.writes() - before, 2);
});

test("what the chat writes at once (a delta, the steers it lets out) reaches the terminal in one write", async (t) => {
  const term = terminal(t);
  term.chat("a reply");
  await term.keys("typed");
  term.inputLine.hold(["↳ steer: left"]);
  const before = term.writes();
  term.inputLine.atOnce(() => {
    term.chat(" ends.\n");
    term.inputLine.hold([]);
    term.chat("↳ steer: left\n");
    term.chat("Next");
  });
  assert.equal(term.writes() - before, 1);
  assert.deepEqual(term.rows(), ["a reply ends.", "↳ steer: left", "Next", "typed"]);
});

test("the status line stays on the row below the typed line as it wraps, is edited, and as a reply streams above", async (t) => {
  const term = terminal(t, () => true);
  term.inputLine.status("\x1b[32mstatus\x1b[0m that is longer than the row");
  assert.deepEqual(term.rows(), ["", "status that is long"]);
  assert.match(term.written(), /\x1b\[32mstatus\x1b\[0m/, "its colours are kept");
  await term.keys("abcdefghijklmnopqrstuvw");
  assert.deepEqual(term.rows(), ["abcdefghijklmnopqrst", "uvw", "status that is long"]);
  await term.keys("\x7f\x7f\x7f\x7f");
  assert.deepEqual(term.rows(), ["abcdefghijklmnopqrs", "status that is long"]);
  term.chat("Reply ");
  term.chat("goes on\n");
  assert.deepEqual(term.rows(), ["Reply goes on", "abcdefghijklmnopqrs", "status that is long"]);
  await term.keys("\r");
  term.chat("next\n");
  assert.deepEqual(term.rows(), ["Reply goes on", "abcdefghijklmnopqrs", "next", "", "status that is long"]);
  term.inputLine.status(undefined);
  assert.deepEqual(term.rows(), ["Reply goes on", "abcdefghijklmnopqrs", "next"]);
});

test("a status of two lines (the settings' status line and the permission mode) takes two rows below the typed line", async (t) => {
  const term = terminal(t, () => true);
  term.inputLine.status("status\n⏸ plan mode on");
  assert.deepEqual(term.rows(), ["", "status", "⏸ plan mode on"]);
  await term.keys("abcdefghijklmnopqrstuvw");
  assert.deepEqual(term.rows(), ["abcdefghijklmnopqrst", "uvw", "status", "⏸ plan mode on"]);
  term.chat("Reply\n");
  assert.deepEqual(term.rows(), ["Reply", "abcdefghijklmnopqrst", "uvw", "status", "⏸ plan mode on"]);
  await term.keys("\x7f\x7f\x7f\x7f");
  assert.deepEqual(term.rows(), ["Reply", "abcdefghijklmnopqrs", "status", "⏸ plan mode on"]);
  term.inputLine.status("status");
  assert.deepEqual(term.rows(), ["Reply", "abcdefghijklmnopqrs", "status"]);
});

test("a reply's styled words are written again in their style when the line goes on below a typed line, on a row they wrapped to too", async (t) => {
  const term = terminal(t);
  term.chat("\x1b[1;4mRes\x1b[0m");
  await term.keys("xy");
  term.chat("\x1b[1;4mults\x1b[0m and \x1b[1mbold words\x1b[0m");
  const bold = "\x1b[1m";
  // Written again from the row's start, the heading's first part keeps its style.
  assert.ok(term.written().includes("\x1b[A\r\x1b[1;4mRes\x1b[0m"), JSON.stringify(term.written()));
  // "Results and bold wor|ds": the row the bold words wrapped to starts in their style.
  await term.keys("z");
  term.chat(" more");
  assert.ok(term.written().includes(`\x1b[A\r${bold}ds\x1b[0m`), JSON.stringify(term.written()));
  assert.deepEqual(term.rows(), ["Results and bold wor", "ds more", "xyz"]);
});

test("in a terminal too short for all the lines held, the last ones show above the typed line and the status line, and redrawing them leaves no copies above", async (t) => {
  const term = terminal(t, () => false, 10);
  term.chat("reply\n");
  term.inputLine.status("status\nmode");
  await term.keys("typed");
  const held = Array.from({ length: 12 }, (_, i) => `out ${i + 1}`);
  // A working row ticking: the held lines are drawn again and again.
  for (let frame = 0; frame < 5; frame++) term.inputLine.hold([...held, `working ${frame}`]);
  const rows = term.rows();
  assert.deepEqual(rows.slice(-10), ["reply", "out 8", "out 9", "out 10", "out 11", "out 12", "working 4", "typed", "status", "mode"]);
  assert.equal(new Set(rows).size, rows.length, rows.join("\n"));
  term.inputLine.hold([]);
  assert.deepEqual(term.rows().slice(-4), ["reply", "typed", "status", "mode"]);
});

const CODER = "👩\u200d💻";
const FAMILY = "👨\u200d👩\u200d👧";
const FLAG = "🇫🇷";

test("Left, Right, Backspace and Delete step over a whole emoji sequence or accented letter, the cursor in the column after it", async (t) => {
  const term = terminal(t);
  await term.paste(`a${CODER}b${FLAG}e\u0301`);
  assert.deepEqual(term.rows(), [`a${CODER}b${FLAG}e\u0301`]);
  // Left twice: before the flag; what is typed goes there.
  await term.keys("\x1b[D\x1b[D");
  await term.keys("!");
  assert.deepEqual(term.rows(), [`a${CODER}b!${FLAG}e\u0301`]);
  // Backspace twice: "!" and "b"; Left once more, before the coder, and Delete takes it off whole.
  await term.keys("\x7f\x7f\x1b[D\x1b[3~");
  await term.keys("?");
  assert.deepEqual(term.rows(), [`a?${FLAG}e\u0301`]);
  // Right over the flag, Backspace: the flag goes whole.
  await term.keys("\x1b[C\x7f");
  assert.deepEqual(term.rows(), [`a?e\u0301`]);
  // End, Backspace: the accented letter goes whole.
  await term.keys("\x1b[F\x7f.");
  assert.deepEqual(term.rows(), ["a?."]);
});

test("a typed line of emoji sequences longer than a row wraps where the terminal wraps it, with nothing else drawn", async (t) => {
  const term = terminal(t);
  term.chat("reply\n");
  // Each comes at once, as a terminal sends it.
  for (let i = 0; i < 12; i++) await term.paste(FAMILY);
  // Ten take the 20 columns of the first row, two the next.
  assert.deepEqual(term.rows(), ["reply", FAMILY.repeat(10), FAMILY.repeat(2)]);
  await term.keys("\x1b[D".repeat(3));
  await term.keys("x");
  assert.deepEqual(term.rows(), ["reply", FAMILY.repeat(9) + "x", FAMILY.repeat(3)]);
  term.chat("more\n");
  assert.deepEqual(term.rows(), ["reply", "more", FAMILY.repeat(9) + "x", FAMILY.repeat(3)]);
  await term.keys("\x7f\x7f");
  assert.deepEqual(term.rows(), ["reply", "more", FAMILY.repeat(10), FAMILY]);
});

test("a tab pasted at the typed line's end, a column from the row's edge, takes that column, and the line goes on below", async (t) => {
  const term = terminal(t, undefined, undefined, true);
  term.chat("reply\n");
  await term.paste("0123456789012345678\tb");
  assert.deepEqual(term.rows(), ["reply", "0123456789012345678", "b"]);
  // A character put before it moves it to the next row's start, where it takes a whole tab stop.
  await term.keys("c\x1b[H!");
  assert.deepEqual(term.rows(), ["reply", "!0123456789012345678", "        bc"]);
  term.chat("more\n");
  assert.deepEqual(term.rows(), ["reply", "more", "!0123456789012345678", "        bc"]);
});
