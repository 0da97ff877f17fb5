// At a terminal, the line being typed into `harness chat` stays on a row of its own below what the
// chat prints, as in an input box: a reply streaming while the user types (to steer the run) never
// gets the typed characters mixed into it.
//
// The chat's writes to the terminal and the line editor's (node:readline) both pass through here.
// Before the chat writes, the typed line is taken off the screen; after, it is drawn again below,
// with the cursor where it was in it. A reply's unfinished line (no newline yet) stays where it is,
// and the typed line goes on the row below it; to write more of the reply, the cursor goes back up
// to that row and its last part is written again from the row's start. Writing it again, rather than
// moving the cursor to a column, leaves the terminal exactly as the reply left it, a row filled to
// the last column included (the next character then wraps). Only relative moves are used, so the
// screen scrolling under a chat at the bottom of the terminal moves nothing out of place.
//
// Each change reaches the terminal in one write: taking the typed line off, what the chat writes and
// drawing the line again are built as one string first, since a terminal may show the screen between
// two writes (the typed line would flicker at each delta of a reply).
//
// Columns are counted per grapheme cluster, as the terminal draws them (display/terminal-text.ts), and the
// line editor is made to reckon and edit the same way (input-clusters.ts): an emoji sequence
// typed takes the two columns it shows in, and the cursor steps over it whole. A tab in the typed line
// (pasted) is drawn as spaces to the next tab stop counted from its row's start (drawnTabs), so that
// a line that wraps takes the rows the editor reckons it does.
import type { Interface } from "node:readline";
import { Writable } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import { editByClusters } from "./input-clusters.ts";
import { clusters, columns, type Sink } from "../../display/render.ts";

/** The terminal the chat and its line editor draw on. */
export type Screen = Sink & Writable & { columns?: number; rows?: number };

export type InputLine = {
  /** `sink` (one of the chat's streams to this terminal), written to around the typed line. What is
   * written to it goes to the screen: both are the same terminal. */
  around(sink: Sink & { columns?: number }): Sink & { columns?: number };
  /** The line editor's output. */
  output: Writable;
  /** Runs `write`, and what it writes (to `around` sinks, through `hold`) reaches the terminal in
   * one write when it is over, the typed line taken off once before it and drawn once after. */
  atOnce(write: () => void): void;
  /** Lines waiting to be printed (steers waiting for the reply's line to end), shown meanwhile
   * between the reply's unfinished line and the typed line. */
  hold(lines: readonly string[]): void;
  /** `editor` draws on `output`. `keepOnEnter(line)`: whether `line`, entered, stays on the screen
   * as typed (a prompt, a command) or is taken off (a steer, which the chat shows its own way). */
  attach(editor: Interface, keepOnEnter: (line: string) => boolean): void;
  /** The status line, on the row below the typed line (undefined: none), cut to the terminal's
   * width: it may hold colours, and no other control characters. Each of its lines (split at "\n")
   * takes a row of its own. */
  status(line: string | undefined): void;
  /** `hintOf(line)`: text shown after the typed line while the cursor is at its end (a command's
   * argument-hint), styled by `style`, never typed: gone as soon as the line changes. Cut to what
   * is left of the line's last row. */
  hints(hintOf: (line: string) => string | undefined, style: (text: string) => string): void;
};

const TAB = 8;
/** What the line editor draws before each line of a line after the first. */
const CONTINUED = "| ";

export function keepInputLine(screen: Screen): InputLine {
  let editor: Interface | undefined;
  let keepOnEnter = (_line: string) => true;
  /** The chat's unfinished line (with its styles), and its last row on the screen. */
  let unfinished = "";
  let partial = "";
  /** The lines held below `partial`, and those of them drawn (the last that fit on the screen). */
  let held: readonly string[] = [];
  let heldDrawn: readonly string[] = [];
  let statusLine: string | undefined;
  let hintOf: (line: string) => string | undefined = () => undefined;
  let hintStyle = (text: string) => text;
  /** A hint is on the screen, from the cursor on (at the typed line's end). */
  let hinted = false;
  /** The held lines and the typed line are on the screen below `partial`, the cursor in the typed
   * line (else the cursor is at the end of `partial`). */
  let drawn = false;
  /** What goes to the terminal in the next write, and whether an atOnce() holds it back. */
  let out = "";
  let deferred = false;
  const width = () => screen.columns || Infinity;
  const write = (bytes: string) => void (out += bytes);
  /** Draws the typed line again (unless deferred) and writes what is waiting, in one write. */
  function flush(): void {
    if (deferred) return;
    draw();
    if (!out) return;
    const bytes = out;
    out = "";
    screen.write(bytes);
  }

  /** Takes the held lines and the typed line off the screen: the cursor goes back to the end of `partial`. */
  function erase(): void {
    if (!drawn || !editor) return;
    const rows = editor.getCursorPos().rows + heldDrawn.reduce((sum, line) => sum + rowsOf(line, width()), 0);
    write(`${rows ? `\x1b[${rows}A` : ""}\r\x1b[J${partial ? `\x1b[A\r${partial}` : ""}`);
    drawn = false;
    hinted = false;
  }

  /** The hint of the typed line after it, the cursor left where it is (at the line's end). */
  function drawHint(): void {
    if (!drawn || !editor || hinted || editor.getPrompt() !== "") return;
    const line = editor.line;
    if (editor.cursor !== line.length) return;
    const hint = hintOf(line);
    if (!hint) return;
    // Up to the row's last column but one: a hint that wrapped would run over the status line, and
    // one that filled the row would leave the cursor waiting to wrap.
    const room = Math.min(width(), 10_000) - 1 - endOf(line, width()).cols;
    let shown = "";
    let used = 0;
    for (const char of clusters(hint.replace(/\s+/g, " "))) {
      if (used + columns(char) > room) break;
      shown += char;
      used += columns(char);
    }
    if (!used) return;
    write(`${hintStyle(shown)}\x1b[${used}D`);
    hinted = true;
  }

  /** Draws the held lines and the typed line below `partial`, the cursor where the editor has it
   * (`entered`: the editor's line was just entered, and it starts a new one). */
  function draw(entered = false): void {
    if (drawn || !editor) return;
    // The editor's prompt is empty but while Ctrl+R searches (search.ts); a line of several
    // lines it draws one under the other, each after the first behind "| ".
    const typed = entered ? "" : editor.getPrompt() + editor.line;
    if (!typed && held.length === 0 && statusLine === undefined) return;
    const end = endOf(typed, width());
    const cursor = entered ? { rows: 0, cols: 0 } : editor.getCursorPos();
    const rows = statusRows();
    heldDrawn = fitting(end.rows + 1 + rows.length);
    // A line that fills its last row: a space makes the terminal start the row the cursor is on.
    write(`${partial ? "\r\n" : ""}${heldDrawn.map((line) => `${line}\r\n`).join("")}${drawnTabs(typed, width()).replaceAll("\n", `\r\n${CONTINUED}`)}${end.cols === 0 ? " " : ""}`);
    const below = rows.length;
    if (below) write(`\r\n${rows.join("\r\n")}\r`);
    write(`\x1b[${cursor.cols + 1}G${end.rows + below > cursor.rows ? `\x1b[${end.rows + below - cursor.rows}A` : ""}`);
    drawn = true;
    if (!entered) drawHint();
  }

  /** The last of the held lines that fit on the screen above `below` rows (the typed line's and the
   * status line's), one row left for `partial`: in a short terminal, more would scroll the screen,
   * and erase() could not reach the rows scrolled off, leaving a copy of them at each redraw. */
  function fitting(below: number): readonly string[] {
    let room = (screen.rows || Infinity) - 1 - below;
    let from = held.length;
    for (; from > 0; from--) {
      room -= rowsOf(held[from - 1], width());
      if (room < 0) break;
    }
    return held.slice(from);
  }

  /** The status line drawn again below the typed line, which the line editor has just redrawn (it
   * clears the screen below it) or made longer (over the status line's row). */
  function redrawStatus(): void {
    if (!drawn || !editor || statusLine === undefined) return;
    const end = endOf(editor.getPrompt() + editor.line, width());
    const cursor = editor.getCursorPos();
    const down = end.rows - cursor.rows + 1;
    // A character just typed into the last column leaves the terminal's cursor there, waiting to
    // wrap: a space makes it start the row the editor reckons it is on.
    const waiting = end.rows > 0 && end.cols === 0 && cursor.rows === end.rows && cursor.cols === 0;
    const rows = statusRows();
    write(`${waiting ? " \x1b[K" : ""}\r${"\n".repeat(down)}\x1b[J${rows.join("\r\n")}\r\x1b[${down + rows.length - 1}A\x1b[${cursor.cols + 1}G`);
  }

  /** The status line's rows, each cut to the terminal's width. */
  function statusRows(): string[] {
    return statusLine === undefined ? [] : statusLine.split("\n").map(fitted);
  }

  /** `line` cut to one row less a column (the cursor never waits at its end to wrap), colours kept. */
  function fitted(line: string): string {
    let room = Math.min(width(), 10_000) - 1;
    let out = "";
    for (const [part] of line.matchAll(/\x1b\[[0-9;:]*m|[^\x1b]+|\x1b/g)) {
      if (part.startsWith("\x1b")) {
        out += part;
        continue;
      }
      for (const char of clusters(part)) {
        const need = char === "\t" ? 1 : columns(char);
        if (need > room) return `${out}\x1b[0m`;
        room -= need;
        out += char === "\t" ? " " : char;
      }
    }
    return out;
  }

  function fromEditor(text: string): void {
    if (!text) return;
    // The editor writes from the cursor, where the hint starts: what it writes must not land in it.
    if (hinted) {
      write("\x1b[K");
      hinted = false;
    }
    // Enter: the editor moves below the line it ends.
    if (text === "\r\n") {
      if (!drawn && partial) return;
      // The editor writes the line break before it lets go of the line.
      const line = editor?.line ?? "";
      const keep = keepOnEnter(line);
      if (keep && held.length === 0) {
        // The cursor is at the line's end, or, when the line fills its last row, at the start of
        // the row below (on the space that made the terminal start it): that row is the next one.
        write(line && endOf(line, width()).cols === 0 ? "\r\x1b[K" : "\r\n");
        partial = unfinished = "";
        drawn = false;
        // The status line goes on below the (empty) line being typed.
        if (statusLine !== undefined) {
          write("\x1b[J");
          draw(true);
        }
        return;
      }
      erase();
      // A line kept goes above the held lines, which the chat prints later, once.
      if (keep) {
        write(`${partial ? "\r\n" : ""}${line}\r\n`);
        partial = unfinished = "";
      }
      draw(true);
      return;
    }
    if (!drawn && partial) write("\r\n");
    drawn = true;
    write(text);
  }

  /** The editor's writes are waiting for the status line to be drawn again after them. */
  let editorWriting = false;
  function editorWritten(): void {
    if (!editorWriting) return;
    editorWriting = false;
    redrawStatus();
    if (deferred || !out) return;
    const bytes = out;
    out = "";
    screen.write(bytes);
  }

  let hintWaiting = false;
  function hintAfterEditor(): void {
    hintWaiting = false;
    // After the status line's redraw, which moves the cursor back to where the editor has it.
    if (editorWriting) return queueMicrotask(hintAfterEditor);
    drawHint();
    if (deferred || !out) return;
    const bytes = out;
    out = "";
    screen.write(bytes);
  }

  const output = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      fromEditor(String(chunk));
      // The editor redraws its line in several writes, moving the cursor between them: the hint
      // goes after the last.
      if (String(chunk) !== "\r\n" && !hintWaiting) {
        hintWaiting = true;
        queueMicrotask(hintAfterEditor);
      }
      // The editor redraws its line in several writes, one after the other: the status line is
      // drawn again once they are all in, and reaches the terminal with them.
      if (statusLine !== undefined && String(chunk) !== "\r\n") {
        if (!editorWriting) queueMicrotask(editorWritten);
        editorWriting = true;
        return done();
      }
      const bytes = out;
      out = "";
      if (bytes) screen.write(bytes);
      done();
    },
  });
  Object.defineProperties(output, { columns: { get: () => screen.columns }, isTTY: { value: true } });
  // A resized terminal wraps its lines again at the new width (as most do): the unfinished line's
  // last row is then another part of it.
  const resized = () => {
    partial = lastRow(unfinished, width());
    output.emit("resize");
  };

  return {
    output,
    around(sink) {
      return {
        isTTY: sink.isTTY,
        get columns() {
          return sink.columns;
        },
        write(text: string) {
          if (!text) return true;
          erase();
          write(text);
          // Kept with their styles (the chat writes no other escape sequences): the line is written
          // again as it was shown.
          const lineEnd = Math.max(text.lastIndexOf("\n"), text.lastIndexOf("\r"));
          unfinished = lineEnd === -1 ? unfinished + text : text.slice(lineEnd + 1);
          partial = lastRow(lineEnd === -1 ? partial + text : unfinished, width());
          flush();
          return true;
        },
      };
    },
    status(line) {
      if (line === statusLine) return;
      erase();
      statusLine = line;
      flush();
    },
    hints(of, style) {
      hintOf = of;
      hintStyle = style;
    },
    hold(lines) {
      erase();
      held = lines.slice();
      flush();
    },
    atOnce(writes) {
      if (deferred) return writes();
      deferred = true;
      try {
        writes();
      } finally {
        deferred = false;
        flush();
      }
    },
    attach(lines, keep) {
      editor = lines;
      keepOnEnter = keep;
      editByClusters(lines, (text) => endOf(text, width()), (text) => drawnTabs(text, width()));
      screen.on("resize", resized);
      lines.on("close", () => {
        erase();
        editor = undefined;
        drawn = false;
        flush();
        screen.off("resize", resized);
      });
      // A status line given before the editor came shows now, below the (empty) typed line.
      if (statusLine !== undefined) flush();
    },
  };
}

/** Where the cursor is after `text` is written from the start of a row `width` columns wide, as the
 * line editor reckons it: a wide character that would straddle the edge goes to the next row. */
function endOf(text: string, width: number): { rows: number; cols: number } {
  let rows = 0;
  let offset = 0;
  for (const char of clusters(text)) {
    if (char === "\n") {
      rows += Math.ceil(offset / width) || 1;
      offset = CONTINUED.length;
      continue;
    }
    offset = startOf(char, offset, width) + (char === "\t" ? tabWidth(offset, width) : columns(char));
  }
  const cols = offset % width;
  return { rows: rows + (offset - cols) / width, cols };
}

/** The columns a tab at `offset` takes in the typed line: up to the row's next tab stop, and no
 * further than the row's end (the next character starts the row below). */
function tabWidth(offset: number, width: number): number {
  const col = offset % width;
  return Math.min(TAB - (col % TAB), width - col);
}

/** `text` (the typed line, or a part of it written from a row's start) as the line editor draws it:
 * each tab as the spaces endOf() gives it. A terminal moves the cursor over a tab instead, from tab
 * stops that need not be where the line's rows start and never past a row's last column: the
 * editor would lose track of the row its cursor is on. */
export function drawnTabs(text: string, width: number): string {
  if (!text.includes("\t")) return text;
  let offset = 0;
  let out = "";
  for (const char of clusters(text)) {
    if (char === "\t") {
      const spaces = tabWidth(offset, width);
      out += " ".repeat(spaces);
      offset += spaces;
      continue;
    }
    out += char;
    offset = char === "\n" ? CONTINUED.length : startOf(char, offset, width) + columns(char);
  }
  return out;
}

function startOf(char: string, offset: number, width: number): number {
  return columns(char) === 2 && (offset + 1) % width === 0 ? offset + 1 : offset;
}

/** How many rows `line` takes, written from the start of a row and followed by a newline. */
function rowsOf(line: string, width: number): number {
  const end = endOf(stripVTControlCharacters(line), width);
  return end.cols === 0 && end.rows > 0 ? end.rows : end.rows + 1;
}

/** The part of `text` (written from the start of a row) on the last row it takes, behind the styles
 * (SGR sequences) in force where that row starts; "" when that row shows nothing yet. */
function lastRow(text: string, width: number): string {
  let offset = 0;
  let row = 0;
  let from = 0;
  let at = 0;
  let style = "";
  let styleFrom = "";
  let shown = false;
  for (const token of tokens(text)) {
    at += token.length;
    if (token.startsWith("\x1b[")) {
      style = token === "\x1b[0m" || token === "\x1b[m" ? "" : style + token;
      continue;
    }
    const start = startOf(token, offset, width);
    const charRow = Math.floor(start / width);
    if (charRow !== row) {
      row = charRow;
      from = at - token.length;
      styleFrom = style;
      shown = false;
    }
    // A terminal's tab goes to the row's next tab stop, and no further than its last column.
    const col = start % width;
    offset = start + (token === "\t" ? Math.min(TAB - (col % TAB), width - 1 - col) : columns(token));
    shown = true;
  }
  return shown ? styleFrom + text.slice(from) : "";
}

/** `text` as SGR sequences and grapheme clusters, in order. */
function* tokens(text: string): Generator<string> {
  for (const [part] of text.matchAll(/\x1b\[[0-9;:]*m|[^\x1b]+|\x1b/g)) {
    if (part.startsWith("\x1b")) yield part;
    else yield* clusters(part);
  }
}
