// A reply's markdown as a terminal shows it, rendered as it streams: headings (# or underlined) in
// bold without their #s, **bold**, *italic*, ~~struck~~, `code` in colour, code blocks (fenced or
// indented) indented without their fence lines and coloured by their language, • for bullets, ☐
// and ☒ for tasks, lists numbered on from their first item and nested as indented, a bar for each
// block quote a line is in (its lazy lines too), a rule for ---, links as their text and (url),
// tables (GFM's, with or without outer pipes) aligned and ruled; an emphasis marker that nothing on
// its line closes is shown as written. Text appears as it comes: held back is only what cannot be
// decided yet (a marker at a chunk's end, the text after an emphasis marker until its closer comes,
// the line ends or it is a few hundred characters behind, the first characters of a line until its
// blocks and kind are known, a paragraph's first line until a pipe (a table's header) or a few
// dozen characters without one have come, never more than the line, a table until it ends or its
// first lines are enough to lay it out). Emphasis nests as CommonMark's delimiter runs do.
// The output never depends on how the text was cut into chunks, and each piece of it closes the
// styles it opens, so that other lines may be written between two pieces.
import { BOLD, CODE, DIM, newInline, REACH, renderInline, UNDERLINE, type Put } from "./inline.ts";
import { codeState, colourCode, type CodeState } from "./code.ts";
import { classify, indentAt, itemMark, matchBlocks, skipCols, type Block, type Kind } from "./blocks.ts";
import { isTable, mayBeHeader, PIPE, putTable, putTableEnd, putTableRow, putTableStart, type TableLayout } from "./table.ts";

export type MarkdownStream = {
  /** The reply's next `text` (without escape sequences): what can be printed of it now. */
  push(text: string): string;
  /** What is held, rendered as if the reply ended here (a table printed whole, a marker as text);
   * what is pushed next starts afresh. */
  end(): string;
};

/** `columns`: the terminal's width now, which a rule spans (up to 80) and a table fits in.
 * `meter`: told how many characters each rendering reads from, the text held, and the work of
 * reading a line's emphasis (tests count the work with it). */
export type MarkdownOptions = { columns?: () => number | undefined; meter?: (chars: number) => void };

type Fence = { marker: string; indent: number; code?: CodeState };

/** A heading's style: the first level's underlined as well. */
const levelStyle = (level: number) => (level === 1 ? `${BOLD};${UNDERLINE}` : BOLD);

const GUTTER = "  ";
/** The most quotes and list items a line is shown in: the markers of deeper ones are its text. A
 * line's blocks are read again at each line, and their bars and indents shown on each, so a line
 * of a million "> " would otherwise cost each line after it a million columns. */
const MAX_NESTING = 20;
/** Lines of a table held to lay out its columns: the rows after them are put as they come. */
const TABLE_HELD = 100;
/** Text held up to this long is read again at each delta: longer than what a marker (a link's two
 * parts) is decided by, so that it is printed once its reach has come, not when the text held has
 * doubled. */
const HOLD_READ_AGAIN = 2 * REACH;

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
  /** The quotes and list items the line read last is in, outermost first. */
  let blocks: Block[] = [];
  /** The open code block's fence, how far its opening line was indented in its block, and its
   * colouring when the fence names a language known. */
  let fence: Fence | undefined;
  /** Whether an indented code block is open, in the innermost of `blocks`. */
  let indented = false;
  /** How the code block's line being printed is coloured: by its language, or all in one colour. */
  let lineCode: CodeState | "plain" | undefined;
  /** Whether the line read last was a paragraph's (or a list item's, or a quote's): a === line
   * after it underlines it, and a line that opens no block goes on with it. */
  let paragraph = false;
  /** The lines of a table (or of what may be one) not printed yet, and whether the last ended.
   * Once the start of a long table is out, `layout` is how its rows are put; "text" once its first
   * two lines show the lines are no table. */
  let table: string[] = [];
  let tableEnded = true;
  let layout: TableLayout | "text" | undefined;
  /** Whether the table's header has no outer pipes: its rows need none either. */
  let bare = false;
  /** The items from this one of `blocks` on were opened on a line not shown as it came (a fence's,
   * a table's): their marks are shown on the first line put in them. */
  let unshown: number | undefined;

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
    lineCode = undefined;
  }

  /** Puts the bars of the quotes a line is in and the indent of its list items, the marks of the
   * items from `fresh` on (opened on the line, or on a fence's or table's line before it: `unshown`);
   * on a blank line, not the indent after the last bar (nor the marks, which wait for a line). */
  function putPrefix(blank: boolean, fresh = blocks.length): void {
    const last = blank ? blocks.findLastIndex((block) => block.type === "quote") : blocks.length - 1;
    const from = Math.min(fresh, unshown ?? blocks.length);
    for (const [i, block] of blocks.slice(0, last + 1).entries()) {
      if (block.type === "quote") put("│ ", DIM);
      else put(i >= from ? block.mark : " ".repeat(block.width), "");
    }
    if (!blank) unshown = undefined;
  }

  /** The marks of items opened on a line that showed nothing (an empty code block's fence), on a
   * line of their own. */
  function putUnshown(): void {
    if (unshown === undefined) return;
    if (unshown < blocks.length) {
      putPrefix(false);
      put("\n", "");
    }
    unshown = undefined;
  }

  /** `put` with the prefix of the blocks the lines are in (putPrefix's) at each line's start. */
  function putInBlocks(): Put {
    let start = true;
    return (text, style) => {
      for (const part of text.split(/(?<=\n)/)) {
        if (start && part !== "\n") putPrefix(false);
        put(part, style);
        start = part.endsWith("\n");
      }
    };
  }

  /** How many columns of the terminal the blocks' prefix takes. */
  const inside = () => blocks.reduce((cols, block) => cols + (block.type === "quote" ? 2 : block.width), 0);
  const room = () => Math.min(options.columns?.() ?? 80, 80) - inside();
  const tableRoom = () => {
    const columns = options.columns?.();
    return columns === undefined ? undefined : columns - inside();
  };

  /** Renders what it can of the line `held` starts with; false when it needs more text. */
  function step(final: boolean): boolean {
    if (!held) return false;
    const newline = held.indexOf("\n");
    const line = newline === -1 ? held : held.slice(0, newline);
    const complete = newline !== -1 || final;
    if (inLine && lineCode) {
      const done = lineCode !== "plain" ? colourCode(line, complete, lineCode, put) : (put(line, CODE), line.length);
      consume(done);
      if (!complete || newline === -1) return false;
      endLine();
      return true;
    }
    if (inLine) {
      const end = heading ? headingEnd(line, complete) : line.length;
      const done = renderInline(line.slice(0, end), 0, complete, inline, base, put, options.meter);
      consume(complete ? line.length : done);
      if (!complete || newline === -1) return false;
      endLine();
      return true;
    }
    return lineStart(line, complete);
  }

  function rule(): void {
    put("─".repeat(Math.max(room(), 3)), DIM);
    endLine();
  }

  /** A line's start: the blocks it goes on in or opens, and its kind. Until they are decided by
   * its first characters (its indent, the > of its quotes, the marker of an item), the line is held,
   * and no more than it. */
  function lineStart(line: string, complete: boolean): boolean {
    const at = matchBlocks(line, complete, blocks, fence !== undefined);
    if (!at) return false;
    const all = at.matched === blocks.length;
    if (fence && all) return codeLine(line, at.pos, complete, fence);
    // A code block ends with the quote it is in.
    if (fence) putUnshown();
    fence = undefined;
    const { cols, end } = indentAt(line, at.pos);
    if (end === line.length && !complete) return false;
    if (table.length > 0 || layout) {
      const row = all ? tableRow(line.slice(end), complete) : false;
      if (row === undefined) return false;
      if (row) return tableLine(line, end, complete);
      putHeldTable();
    }
    if (end === line.length) {
      // A blank line ends the quotes it is not in, and a paragraph: a list item, or a code
      // block, goes on past it.
      blocks.length = at.matched;
      indented &&= all;
      putPrefix(true);
      consume(line.length);
      endLine();
      paragraph = false;
      return true;
    }
    if (indented && all && cols >= 4) return codeStart(skipCols(line, at.pos, 4), blocks.length);
    indented = false;
    // The quotes and items that open on the line, then its own kind.
    const opened: { kind: Extract<Kind, { type: "quote" | "item" }>; indent: number }[] = [];
    let from = at.pos;
    let pos = end;
    let indent = cols;
    let kind: Kind | undefined;
    for (;;) {
      if (indent >= 4) {
        // Four columns in from its block: code, unless it goes on with a paragraph, or is the
        // first line's text of an item opened on it.
        kind = (opened.length === 0 && paragraph) || opened.at(-1)?.kind.type === "item" ? { type: "text" } : undefined;
        break;
      }
      kind = classify(line.slice(pos), complete);
      if (kind === undefined) return false;
      if (kind.type !== "quote" && kind.type !== "item") break;
      if (at.matched + opened.length >= MAX_NESTING) {
        kind = { type: "text" };
        break;
      }
      const after = indentAt(line, pos + kind.skip);
      if (after.end === line.length && !complete) return false;
      if (opened.length === 0 && kind.type === "item" && paragraph && !continuesList(at.matched, kind, after.end === line.length)) {
        kind = { type: "text" };
        break;
      }
      opened.push({ kind, indent });
      from = pos + kind.skip;
      ({ cols: indent, end: pos } = after);
      if (pos === line.length) {
        if (!complete) return false;
        kind = { type: "text" };
        break;
      }
    }
    // A table's line is read whole: its blocks open once it has come (opened twice, an item would
    // be numbered as the next one).
    if (kind?.type === "table" && !complete) return false;
    const lazy = opened.length === 0 && !all && paragraph && kind?.type === "text";
    if (!lazy) {
      if (opened.length === 0 && all && paragraph && cols < 4 && /^(?:=+|-+)[ \t]*$/.test(line.slice(pos))) {
        // A setext heading's underline: its title, printed as it came (a paragraph's line is never
        // held to see whether one follows), is underlined with a rule, as --- is.
        if (!complete) return false;
        consume(line.length);
        putPrefix(false);
        rule();
        paragraph = false;
        return true;
      }
      openBlocks(at.matched, at.cols, opened);
    }
    const fresh = lazy ? blocks.length : at.matched;
    if (!kind) return codeStart(skipCols(line, from, 4), fresh);
    if (kind.type === "text" && !paragraph && opened.length === 0) {
      // A paragraph's first line may be a table's header (GFM's, without outer pipes): held while
      // its first characters may still show a pipe.
      const header = mayBeHeader(line.slice(pos), complete);
      if (header === undefined) return false;
      if (header) {
        bare = true;
        return tableLine(line, pos, complete);
      }
    }
    paragraph = kind.type === "text" && pos < line.length;
    switch (kind.type) {
      case "text":
        putPrefix(false, fresh);
        consume(pos);
        inLine = true;
        return true;
      case "heading":
        putPrefix(false, fresh);
        consume(pos + kind.skip);
        heading = true;
        base = levelStyle(kind.level);
        inLine = true;
        return true;
      case "rule":
        putPrefix(false, fresh);
        consume(line.length);
        rule();
        return true;
      case "fence":
        // The fence line is not shown: the marks of items opened on it are, on the code's first line.
        if (fresh < blocks.length) unshown = fresh;
        fence = { marker: kind.marker, indent, code: codeState(kind.info) };
        consume(line.length);
        if (held.startsWith("\n")) consume(1);
        return true;
      case "table":
        bare = false;
        if (fresh < blocks.length) unshown = fresh;
        return tableLine(line, pos, complete);
    }
    return false;
  }

  /** Whether an item on a line after a paragraph's may open there, rather than the line going on
   * with the paragraph: as CommonMark has it, only a list's next item, or a list's first item
   * numbered 1 (or not numbered) and not empty, so that "2024." at a line's start stays text. */
  function continuesList(matched: number, kind: Extract<Kind, { type: "item" }>, empty: boolean): boolean {
    const closed = blocks[matched];
    if (closed?.type === "item" && closed.list === kind.list) return true;
    return !empty && (kind.number === undefined || kind.number === 1);
  }

  /** Closes the blocks from `matched` on and opens those `opened` on a line: an item in the list
   * of the one it follows is numbered on from it. An item opened inside another at fewer columns
   * than the other's text (- under 1., two spaces in) makes them the other's content indent. */
  function openBlocks(matched: number, cols: number, opened: { kind: Extract<Kind, { type: "quote" | "item" }>; indent: number }[]): void {
    const closed = blocks[matched];
    blocks.length = matched;
    const parent = blocks.at(-1);
    if (opened[0]?.kind.type === "item" && parent?.type === "item" && cols < parent.content) parent.content = cols;
    for (const [i, { kind, indent }] of opened.entries()) {
      if (kind.type === "quote") {
        blocks.push({ type: "quote" });
        continue;
      }
      const after = i === 0 && closed?.type === "item" && closed.list === kind.list ? closed : undefined;
      const number = kind.number === undefined ? undefined : (after?.next ?? kind.number);
      const mark = itemMark(kind, number);
      const content = indent + kind.marker;
      blocks.push({ type: "item", list: kind.list, next: (number ?? 0) + 1, need: Math.min(content, indent + 2), content, mark, width: mark.length });
    }
  }

  /** An indented code block's line, its code from `from`: shown as a fenced one without a
   * language is. */
  function codeStart(from: number, fresh: number): boolean {
    indented = true;
    paragraph = false;
    putPrefix(false, fresh);
    put(GUTTER, "");
    consume(from);
    lineCode = "plain";
    inLine = true;
    return true;
  }

  /** A line in a code block, from `pos`: its text, or the fence that closes the block (not
   * printed). */
  function codeLine(line: string, pos: number, complete: boolean, open: Fence): boolean {
    const mark = open.marker[0];
    const rest = line.slice(pos);
    if (complete && new RegExp(`^\\s*${mark}{${open.marker.length},}\\s*$`).test(rest)) {
      consume(line.length);
      if (held.startsWith("\n")) consume(1);
      fence = undefined;
      putUnshown();
      return true;
    }
    if (!complete && new RegExp(`^\\s*${mark}*\\s*$`).test(rest)) return false;
    // The block is indented as its fence was (in a list item): that indent is not the code's.
    const strip = skipCols(line, pos, open.indent);
    putPrefix(strip === line.length);
    consume(strip);
    if (line.length > strip) put(GUTTER, "");
    lineCode = open.code ?? "plain";
    inLine = true;
    return true;
  }

  /** Whether `rest`, a line after the table's first ones, is a row of it: one that starts with a
   * pipe; the delimiter row under the header, with or without outer pipes; in a table whose header
   * has none, a line with a pipe. Undefined while what has come of the line leaves it open. */
  function tableRow(rest: string, complete: boolean): boolean | undefined {
    if (rest.startsWith("|")) return true;
    if (layout === "text") return false;
    if (table.length === 1 && layout === undefined) {
      if (!/^[ \t|:-]*$/.test(rest)) return false;
      return complete ? rest.includes("|") && isTable([table[0], rest]) : undefined;
    }
    if (!bare) return false;
    return PIPE.test(rest) || (complete ? false : undefined);
  }

  /** A row of the table held (`line` from `pos`): held with the others, or, the start of a long
   * table out, printed. */
  function tableLine(line: string, pos: number, complete: boolean): boolean {
    if (!complete) return false;
    table.push(line.slice(pos));
    consume(line.length);
    tableEnded = held.startsWith("\n");
    if (tableEnded) consume(1);
    if (layout === undefined && table.length === 2 && !isTable(table)) layout = "text";
    if (layout === undefined && table.length >= TABLE_HELD) layout = putTableStart(table, putInBlocks(), tableRoom());
    else if (layout === "text") putText(table);
    else if (layout) putTableRow(layout, table[0], putInBlocks());
    if (layout) table = [];
    return true;
  }

  /** What is held of a table, or of lines that are none, printed: its run of lines is over. */
  function putHeldTable(): void {
    if (layout === undefined && isTable(table)) putTable(table, putInBlocks(), tableRoom());
    else if (layout === undefined) putText(table);
    else if (layout !== "text") putTableEnd(layout, putInBlocks());
    paragraph = layout === "text" || (layout === undefined && !isTable(table));
    table = [];
    layout = undefined;
  }

  /** Lines that start with a pipe and are no table's, as the lines of text they are. */
  function putText(lines: readonly string[]): void {
    const inBlocks = putInBlocks();
    lines.forEach((line, i) => {
      renderInline(line, 0, true, newInline(), "", inBlocks);
      if (i < lines.length - 1 || tableEnded) inBlocks("\n", "");
    });
  }

  function render(final: boolean): string {
    options.meter?.(held.length);
    while (step(final));
    if (final && (table.length > 0 || layout)) putHeldTable();
    if (final) putUnshown();
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
      blocks = [];
      fence = undefined;
      indented = false;
      lineCode = undefined;
      return text;
    },
  };
}

/** How much of a heading's `line` (`complete`: all of it) is its text: not its closing #s (after a
 * space) nor the spaces around them, nor, while the line may go on, what may yet become them. */
function headingEnd(line: string, complete: boolean): number {
  const tail = complete ? (/(?:^|[ \t]+)#+[ \t]*$/.exec(line) ?? /[ \t]*$/.exec(line)!) : /(?:(?:^|[ \t]+)#*)?[ \t]*$/.exec(line)!;
  return tail.index;
}
