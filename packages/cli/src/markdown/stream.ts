// A reply's markdown as a terminal shows it, rendered as it streams: headings (# or underlined) in
// bold without their #s, **bold**, *italic*, ~~struck~~, `code` in colour, fenced code blocks
// indented without their fence lines and coloured by their language, • for bullets, ☐ and ☒ for
// tasks, a bar for block quotes, a rule for ---, links as their text and (url), tables aligned and
// ruled; an emphasis marker that nothing on its line closes is shown as written. Text appears as
// it comes: held back is only what cannot be decided yet (a marker at a chunk's end, the text
// after an emphasis marker until its closer comes, the line ends or it is a few hundred characters
// behind, the first characters of a line until its kind is known, a table until it ends or its
// first lines are enough to lay it out). The output never depends on how the text was cut into chunks, and each piece of it
// closes the styles it opens, so that other lines may be written between two pieces.
import { BOLD, CODE, DIM, newInline, REACH, renderInline, UNDERLINE, type Put } from "./inline.ts";
import { codeState, colourCode, type CodeState } from "./code.ts";
import { isTable, putTable, putTableEnd, putTableRow, putTableStart, type TableLayout } from "./table.ts";

export type MarkdownStream = {
  /** The reply's next `text` (without escape sequences): what can be printed of it now. */
  push(text: string): string;
  /** What is held, rendered as if the reply ended here (a table printed whole, a marker as text);
   * what is pushed next starts afresh. */
  end(): string;
};

/** `columns`: the terminal's width now, which a rule spans (up to 80) and a table fits in.
 * `meter`: told how many characters each rendering reads from, the text held (tests count the
 * work with it). */
export type MarkdownOptions = { columns?: () => number | undefined; meter?: (chars: number) => void };

/** The kind of a line, from its first characters (after its indent); `skip`: how many of them are
 * markup, not text. */
type Kind =
  | { type: "text" | "rule" | "table" }
  | { type: "heading"; level: number; skip: number }
  | { type: "item"; mark: string; skip: number }
  | { type: "quote"; skip: number }
  | { type: "fence"; marker: string; info: string };

type Fence = { marker: string; indent: number; code?: CodeState };

/** A heading's style: the first level's underlined as well. */
const levelStyle = (level: number) => (level === 1 ? `${BOLD};${UNDERLINE}` : BOLD);

const GUTTER = "  ";
/** Lines of a table held to lay out its columns: the rows after them are put as they come. */
const TABLE_HELD = 100;
/** Text held up to this long is read again at each delta: longer than what a marker (a link's two
 * parts) is decided by, so that it is printed once its reach has come, not when the text held has
 * doubled. */
const HOLD_READ_AGAIN = 2 * REACH;
const BULLET = "• ";

/** The renderer for replies written to `out`: a terminal in colour shows their markdown rendered, its
 * tables as wide as the terminal is now; piped or without colour (undefined), replies are printed as
 * the model wrote them. */
export function markdownFor(out: { isTTY?: boolean; columns?: number }, color: boolean | undefined): MarkdownStream | undefined {
  return color && out.isTTY ? createMarkdownStream({ columns: () => out.columns }) : undefined;
}

export function createMarkdownStream(options: MarkdownOptions = {}): MarkdownStream {
  /** What has come and is not rendered yet. */
  let held = "";
  let out: [text: string, style: string][] = [];
  /** Within a line whose kind is known: its text (or a code block's line) streams. */
  let inLine = false;
  let inline = newInline();
  /** The style a line's text is on (a heading's), and whether the line is a heading. */
  let base = "";
  let heading = false;
  /** The open code block's fence, how far its opening line was indented, and its colouring when
   * the fence names a language known. */
  let fence: Fence | undefined;
  /** Whether the line read last was a paragraph's (or a list item's, or a quote's): a === line
   * after it underlines it. */
  let paragraph = false;
  /** The lines of a table (or of what may be one) not printed yet, and whether the last ended.
   * Once the start of a long table is out, `layout` is how its rows are put; "text" once its first
   * two lines show the lines are no table. */
  let table: string[] = [];
  let tableEnded = true;
  let layout: TableLayout | "text" | undefined;

  const put: Put = (text, style) => {
    if (!text) return;
    const last = out.at(-1);
    if (last && last[1] === style) last[0] += text;
    else out.push([text, style]);
  };
  const consume = (n: number) => (held = held.slice(n));

  /** The line read is over: its "\n" (if it came) is printed and the next is read afresh. */
  function endLine(): void {
    if (held.startsWith("\n")) {
      put("\n", "");
      consume(1);
    }
    inLine = false;
    inline = newInline();
    base = "";
    heading = false;
  }

  /** Renders what it can of the line `held` starts with; false when it needs more text. */
  function step(final: boolean): boolean {
    if (!held) return false;
    const newline = held.indexOf("\n");
    const line = newline === -1 ? held : held.slice(0, newline);
    const complete = newline !== -1 || final;
    if (inLine && fence) {
      const done = fence.code ? colourCode(line, complete, fence.code, put) : (put(line, CODE), line.length);
      consume(done);
      if (!complete || newline === -1) return false;
      endLine();
      return true;
    }
    if (inLine) {
      const end = heading ? headingEnd(line, complete) : line.length;
      const done = renderInline(line.slice(0, end), 0, complete, inline, base, put);
      consume(complete ? line.length : done);
      if (!complete || newline === -1) return false;
      endLine();
      return true;
    }
    if (table.length > 0 || layout) return tableLine(line, complete);
    if (fence) return codeLine(line, complete, fence);
    return lineStart(line, complete, final);
  }

  function rule(): void {
    put("─".repeat(Math.min(options.columns?.() ?? 80, 80)), DIM);
    endLine();
  }

  function lineStart(line: string, complete: boolean, final: boolean): boolean {
    const indent = /^[ \t]*/.exec(line)![0];
    if (indent.length === line.length) {
      // Blank so far: a blank line, or the indent of one whose kind is still to come.
      if (!complete) return false;
      consume(line.length);
      endLine();
      paragraph = false;
      return true;
    }
    const kind = classify(line.slice(indent.length), complete);
    if (kind === undefined) return false;
    if (kind.type === "text" && paragraph && indent.length <= 3 && /^=+[ \t]*$/.test(line.slice(indent.length))) {
      // A setext heading's === underline: its title, printed as it came (a paragraph's line is
      // never held to see whether one follows), is underlined with a rule, as --- is.
      if (!complete) return false;
      consume(line.length);
      rule();
      paragraph = false;
      return true;
    }
    paragraph = kind.type === "text" || kind.type === "item" || kind.type === "quote";
    switch (kind.type) {
      case "text":
        put(indent, "");
        consume(indent.length);
        inLine = true;
        return true;
      case "heading":
      case "item":
        put(kind.type === "item" ? `${indent}${kind.mark}` : indent, "");
        consume(indent.length + kind.skip);
        heading = kind.type === "heading";
        base = kind.type === "heading" ? levelStyle(kind.level) : "";
        inLine = true;
        return true;
      case "quote":
        // What follows the bar is a line of its own kind (a list item, a heading, …).
        put(indent, "");
        put("│ ", DIM);
        consume(indent.length + kind.skip);
        return true;
      case "rule":
        consume(line.length);
        rule();
        return true;
      case "fence":
        fence = { marker: kind.marker, indent: indent.length, code: codeState(kind.info) };
        consume(line.length);
        if (held.startsWith("\n")) consume(1);
        return true;
      case "table":
        return tableLine(line, complete);
    }
  }

  /** A line in a code block: its text, or the fence that closes the block (not printed). */
  function codeLine(line: string, complete: boolean, open: Fence): boolean {
    const mark = open.marker[0];
    if (complete && new RegExp(`^\\s*${mark}{${open.marker.length},}\\s*$`).test(line)) {
      consume(line.length);
      if (held.startsWith("\n")) consume(1);
      fence = undefined;
      return true;
    }
    if (!complete && new RegExp(`^\\s*${mark}*\\s*$`).test(line)) return false;
    // The block is indented as its fence was (in a list item): that indent is not the code's.
    const strip = Math.min(/^ */.exec(line)![0].length, open.indent);
    consume(strip);
    if (line.length > strip) put(GUTTER, "");
    inLine = true;
    return true;
  }

  /** A line while a table is held: another of its rows (a line starting with "|"), or the end of it. */
  function tableLine(line: string, complete: boolean): boolean {
    const indent = /^[ \t]*/.exec(line)![0];
    if (indent.length === line.length && !complete) return false;
    if (line[indent.length] !== "|") {
      putHeldTable();
      return true;
    }
    if (!complete) return false;
    table.push(line);
    consume(line.length);
    tableEnded = held.startsWith("\n");
    if (tableEnded) consume(1);
    if (layout === undefined && table.length === 2 && !isTable(table)) layout = "text";
    if (layout === undefined && table.length >= TABLE_HELD) layout = putTableStart(table, put, options.columns?.());
    else if (layout === "text") putText(table);
    else if (layout) putTableRow(layout, line, put);
    if (layout) table = [];
    return true;
  }

  /** What is held of a table, or of lines that are none, printed: its run of lines is over. */
  function putHeldTable(): void {
    if (layout === undefined && isTable(table)) putTable(table, put, options.columns?.());
    else if (layout === undefined) putText(table);
    else if (layout !== "text") putTableEnd(layout, put);
    paragraph = layout === "text" || (layout === undefined && !isTable(table));
    table = [];
    layout = undefined;
  }

  /** Lines that start with a pipe and are no table's, as the lines of text they are. */
  function putText(lines: readonly string[]): void {
    lines.forEach((line, i) => {
      renderInline(line, 0, true, newInline(), "", put);
      if (i < lines.length - 1 || tableEnded) put("\n", "");
    });
  }

  function render(final: boolean): string {
    options.meter?.(held.length);
    while (step(final));
    if (final && (table.length > 0 || layout)) putHeldTable();
    const text = out.map(([t, style]) => (style ? `\x1b[${style}m${t}\x1b[0m` : t)).join("");
    out = [];
    return text;
  }

  /** How long the text held must grow before it is read again, when the last reading left much
   * of it undecided (a long run of backticks, a line of dashes, a word in code): reading it at each
   * delta would cost the square of its length. As the output never depends on the chunks, waiting
   * changes only when it appears; a line's end decides what it holds, and is read at once. */
  let due = 0;

  return {
    push(text) {
      held += text;
      if (held.length < due && !text.includes("\n")) return "";
      const printed = render(false);
      due = held.length < HOLD_READ_AGAIN ? 0 : 2 * held.length;
      return printed;
    },
    end() {
      const text = render(true);
      held = "";
      due = 0;
      inLine = false;
      inline = newInline();
      base = "";
      heading = false;
      paragraph = false;
      fence = undefined;
      return text;
    },
  };
}

/** The kind of a line from `rest`, the line after its indent (`complete`: all of it), or
 * undefined while its first characters may still make it one kind or another. */
function classify(rest: string, complete: boolean): Kind | undefined {
  const c = rest[0];
  const run = /^(.)\1*/.exec(rest)![0].length;
  const wait = !complete;
  if (c === "#") {
    if (run > 6) return { type: "text" };
    if (run === rest.length) return wait ? undefined : { type: "heading", level: run, skip: run };
    return rest[run] === " " || rest[run] === "\t" ? { type: "heading", level: run, skip: run + 1 } : { type: "text" };
  }
  if (c === ">") {
    if (rest.length === 1 && wait) return undefined;
    return { type: "quote", skip: rest[1] === " " ? 2 : 1 };
  }
  if (c === "`" || c === "~") {
    if (run < 3) return run === rest.length && wait ? undefined : { type: "text" };
    // The language after the fence is not shown (it names the colours); a line of backticks with
    // more after them is code spans, not a fence.
    if (wait) return undefined;
    return c === "`" && rest.slice(run).includes("`") ? { type: "text" } : { type: "fence", marker: rest.slice(0, run), info: rest.slice(run).trim() };
  }
  if (c === "-" || c === "*" || c === "+" || c === "_") {
    if (rest.length === 1 && wait) return undefined;
    // Three or more of one of -, * and _ alone on a line (spaces aside, - - - too) are a rule.
    if (c !== "+" && new RegExp(`^[${c} \\t]*$`).test(rest)) {
      if (wait) return undefined;
      if (rest.split(c).length > 3) return { type: "rule" };
    }
    if (c !== "_" && (rest[1] === " " || rest[1] === "\t")) return item(rest, BULLET, 2, wait);
    return { type: "text" };
  }
  if (c >= "0" && c <= "9") {
    const digits = /^\d{1,9}/.exec(rest)![0].length;
    const after = rest[digits];
    if (after === undefined) return wait ? undefined : { type: "text" };
    if (after !== "." && after !== ")") return { type: "text" };
    if (rest.length === digits + 1) return wait ? undefined : { type: "text" };
    return rest[digits + 1] === " " || rest[digits + 1] === "\t" ? item(rest, `${rest.slice(0, digits + 1)} `, digits + 2, wait) : { type: "text" };
  }
  if (c === "|") return wait ? undefined : { type: "table" };
  return { type: "text" };
}

/** A list item whose text starts at `skip` in `rest`, shown with `mark`: a task's box (`[ ]`, `[x]`)
 * after its marker is shown as ☐ or ☒ instead of the bullet (after an ordered item's number). */
function item(rest: string, mark: string, skip: number, wait: boolean): Kind | undefined {
  const after = rest.slice(skip);
  if (wait && after.length < 4 && /^(?:\[(?:[ xX]\]?)?)?$/.test(after)) return undefined;
  const box = /^\[([ xX])\](?:[ \t]|$)/.exec(after);
  if (!box) return { type: "item", mark, skip };
  const shown = box[1] === " " ? "☐ " : "☒ ";
  return { type: "item", mark: mark === BULLET ? shown : mark + shown, skip: skip + box[0].length };
}

/** How much of a heading's `line` (`complete`: all of it) is its text: not its closing #s (after a
 * space) nor the spaces around them, nor, while the line may go on, what may yet become them. */
function headingEnd(line: string, complete: boolean): number {
  const tail = complete ? (/(?:^|[ \t]+)#+[ \t]*$/.exec(line) ?? /[ \t]*$/.exec(line)!) : /(?:(?:^|[ \t]+)#*)?[ \t]*$/.exec(line)!;
  return tail.index;
}
