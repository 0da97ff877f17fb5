// How the terminal's markdown (stream.ts) reads the start of a line: the quotes and list items it
// goes on in (its containers), and the kind of what follows them. Columns are counted from where
// the container around them starts its content, a tab as four.

/** The kind of a line, from its first characters (after its indent); `skip`: how many of them are
 * markup, not text. An item's `list` is its marker's kind (-, *, +, . or ) after a number), its
 * `number` its number if it has one, `marker` how long the marker is with the space after it, `box`
 * the task box shown after it. */
export type Kind =
  | { type: "text" | "rule" | "table" }
  | { type: "heading"; level: number; skip: number }
  | { type: "item"; list: string; number?: number; marker: number; box: string; skip: number }
  | { type: "quote"; skip: number }
  | { type: "fence"; marker: string; info: string };

/** An open block quote, or an open list item: `mark` is how it is shown on its first line, `width`
 * its content's indent when shown; a line is the item's when indented `need` columns, and
 * `content` columns of that indent are the item's (the rest is the line's own). `next`: the number
 * the list's next item gets. */
export type Block = { type: "quote" } | { type: "item"; list: string; next: number; need: number; content: number; mark: string; width: number };

export const BULLET = "• ";

/** The columns of whitespace in `line` from `pos`, and where it ends. */
export function indentAt(line: string, pos: number): { cols: number; end: number } {
  let cols = 0;
  let end = pos;
  for (; line[end] === " " || line[end] === "\t"; end++) cols += line[end] === "\t" ? 4 : 1;
  return { cols, end };
}

/** Where `line` is once up to `cols` columns of its whitespace from `pos` are read. */
export function skipCols(line: string, pos: number, cols: number): number {
  for (let n = 0; n < cols && (line[pos] === " " || line[pos] === "\t"); pos++) n += line[pos] === "\t" ? 4 : 1;
  return pos;
}

/** How many of the open `blocks` the line goes on in, and where its rest starts; `lax`: in a code
 * block inside them, where a list item's code keeps the item's however it is indented (only a
 * quote's > is needed). Undefined while the line's characters so far leave it open (only spaces). */
export function matchBlocks(line: string, complete: boolean, blocks: readonly Block[], lax: boolean): { matched: number; pos: number; cols: number } | undefined {
  let pos = 0;
  let cols = 0;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i];
    const indent = indentAt(line, pos);
    if (indent.end === line.length && !complete) return undefined;
    if (block.type === "quote") {
      if (indent.cols > 3 || line[indent.end] !== ">") return { matched: i, pos, cols };
      pos = indent.end + 1;
      if (line[pos] === " " || line[pos] === "\t") pos++;
      cols = 0;
      continue;
    }
    // A blank line stays in the item: a blank between its paragraphs, or between two items.
    if (indent.end < line.length && indent.cols < block.need && !lax) return { matched: i, pos, cols };
    cols = Math.min(indent.cols, block.content);
    pos = skipCols(line, pos, block.content);
  }
  return { matched: blocks.length, pos, cols };
}

/** The kind of a line from `rest`, the line after its indent (`complete`: all of it), or
 * undefined while its first characters may still make it one kind or another. */
export function classify(rest: string, complete: boolean): Kind | undefined {
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
    return { type: "quote", skip: rest[1] === " " || rest[1] === "\t" ? 2 : 1 };
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
    if (c !== "_" && (rest[1] === " " || rest[1] === "\t")) return item(rest, c, undefined, 2, wait);
    return { type: "text" };
  }
  if (c >= "0" && c <= "9") {
    const digits = /^\d{1,9}/.exec(rest)![0].length;
    const after = rest[digits];
    if (after === undefined) return wait ? undefined : { type: "text" };
    if (after !== "." && after !== ")") return { type: "text" };
    if (rest.length === digits + 1) return wait ? undefined : { type: "text" };
    return rest[digits + 1] === " " || rest[digits + 1] === "\t" ? item(rest, after, Number(rest.slice(0, digits)), digits + 2, wait) : { type: "text" };
  }
  if (c === "|") return wait ? undefined : { type: "table" };
  return { type: "text" };
}

/** A list item whose text starts at `skip` in `rest`: a task's box (`[ ]`, `[x]`) after its marker
 * is shown as ☐ or ☒. */
function item(rest: string, list: string, number: number | undefined, skip: number, wait: boolean): Kind | undefined {
  const after = rest.slice(skip);
  if (wait && after.length < 4 && /^(?:\[(?:[ xX]\]?)?)?$/.test(after)) return undefined;
  const box = /^\[([ xX])\](?:[ \t]|$)/.exec(after);
  if (!box) return { type: "item", list, number, marker: skip, box: "", skip };
  return { type: "item", list, number, marker: skip, box: box[1] === " " ? "☐ " : "☒ ", skip: skip + box[0].length };
}

/** How an item is shown on its first line: its number (the list's count, from the first item's),
 * or a bullet where it has no box to show instead. */
export function itemMark(kind: Extract<Kind, { type: "item" }>, number: number | undefined): string {
  return number === undefined ? kind.box || BULLET : `${number}${kind.list} ${kind.box}`;
}
