// The line editor (node:readline) of a chat at a terminal, made to edit what the terminal draws as
// one character: Left and Right (and every other move) step over a whole grapheme cluster (an emoji
// sequence, a letter with its accents), Backspace and Delete take one off whole, and the cursor's
// column is reckoned with the columns the terminal gives each cluster (display/terminal-text.ts), not
// node:readline's own count (which gives an emoji joined by ZWJ four columns, a flag four).
//
// Text typed at the line's end is written as it comes, unless it takes the cursor to another row,
// joins the cluster before it (node:readline inserts an emoji sequence one code point at a time) or
// holds a tab: the line is then drawn again, so that the terminal gets each cluster in one piece and
// the editor keeps track of the row its cursor is on. Text typed or pasted anywhere else (node:readline
// would write a paste's characters straight out there, no completion running while it comes) draws
// the line again too. A tab (pasted: a typed one completes) is drawn as the spaces to the row's next
// tab stop, as the columns are reckoned, not left to the terminal's own tab stops.
//
// node:readline reaches these through the underscore methods its Interface keeps for
// compatibility (`_moveCursor`, `_deleteLeft`, …); an instance's own take precedence.
import type { Interface } from "node:readline";
import { stripVTControlCharacters } from "node:util";
import { clusters } from "../../display/terminal-text.ts";

type Position = { rows: number; cols: number };
type Editor = Interface & {
  line: string;
  cursor: number;
  _getDisplayPos(text: string): Position;
  _moveCursor(dx: number): void;
  _deleteLeft(): void;
  _deleteRight(): void;
  _refreshLine(): void;
  _insertString(text: string): void;
  _writeToOutput(text: string): void;
};

/** `editor` edits by clusters; `displayPos(text)`: where the cursor is after `text` is written from
 * the start of a row, as the screen has it; `drawn(text)`: what is written for `text` (a part of the
 * line from a row's start: its tabs as the spaces `displayPos` gives them). */
export function editByClusters(editor: Interface, displayPos: (text: string) => Position, drawn: (text: string) => string): void {
  const lines = editor as Editor;
  const { _moveCursor: move, _deleteLeft: deleteLeft, _deleteRight: deleteRight, _insertString: insert, _refreshLine: refresh, _writeToOutput: writeOut } = lines;
  lines._getDisplayPos = (text) => displayPos(stripVTControlCharacters(text));
  // node:readline draws the line again in writes that each start a row: the prompt and the line (or
  // its first line), then each further line behind its "\n" and "| ".
  let refreshing = false;
  lines._refreshLine = function () {
    refreshing = true;
    try {
      refresh.call(this);
    } finally {
      refreshing = false;
    }
  };
  lines._writeToOutput = function (text) {
    writeOut.call(this, refreshing ? drawn(text) : text);
  };
  lines._moveCursor = function (dx) {
    if (!Number.isFinite(dx) || dx === 0) return move.call(this, dx);
    const target = Math.max(0, Math.min(this.line.length, this.cursor + dx));
    move.call(this, (dx < 0 ? startAtOrBefore(this.line, target) : endAtOrAfter(this.line, target)) - this.cursor);
  };
  lines._insertString = function (text) {
    const atEnd = this.cursor === this.line.length;
    const before = this.getCursorPos();
    quietly(this, () => insert.call(this, text));
    const joins = atEnd && lastCluster(this.line).length > text.length;
    if (atEnd && !joins && !text.includes("\t") && this.getCursorPos().rows === before.rows) this._writeToOutput(text);
    else this._refreshLine();
  };
  lines._deleteLeft = function () {
    if (this.cursor === 0) return;
    const from = startAtOrBefore(this.line, this.cursor - 1);
    const before = this.line;
    const cursor = this.cursor;
    // node:readline takes off the code point before the cursor (and records the line for undo);
    // the rest of the cluster goes with it, and the line is drawn once.
    quietly(this, () => deleteLeft.call(this));
    this.line = before.slice(0, from) + before.slice(cursor);
    this.cursor = from;
    this._refreshLine();
  };
  lines._deleteRight = function () {
    if (this.cursor >= this.line.length) return;
    const to = endAtOrAfter(this.line, this.cursor + 1);
    const before = this.line;
    quietly(this, () => deleteRight.call(this));
    this.line = before.slice(0, this.cursor) + before.slice(to);
    this._refreshLine();
  };
}

/** Runs `edit` (one of node:readline's, which records the line for undo) drawing nothing. */
function quietly(editor: Editor, edit: () => void): void {
  const { _refreshLine: refresh, _writeToOutput: writeOut } = editor;
  editor._refreshLine = editor._writeToOutput = () => {};
  try {
    edit();
  } finally {
    editor._refreshLine = refresh;
    editor._writeToOutput = writeOut;
  }
}

/** The start of the cluster `at` (an index into `line`) is in, or `at` if a cluster starts there. */
function startAtOrBefore(line: string, at: number): number {
  let start = 0;
  for (const cluster of clusters(line)) {
    if (start + cluster.length > at) return start;
    start += cluster.length;
  }
  return Math.max(0, Math.min(at, line.length));
}

/** The end of the cluster `at` is inside of, or `at` if a cluster starts (or the line ends) there. */
function endAtOrAfter(line: string, at: number): number {
  let end = 0;
  for (const cluster of clusters(line)) {
    if (end >= at) return end;
    end += cluster.length;
  }
  return line.length;
}

/** The last cluster of `line` (none is longer than a few dozen characters). */
function lastCluster(line: string): string {
  return clusters(line.slice(-64)).at(-1) ?? "";
}
