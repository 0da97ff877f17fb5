// A line diff of two texts (a longest common subsequence of their lines), for showing what an edit
// changed, and its hunks: the changes with a few unchanged lines around each. Pure and browser-safe:
// the terminal chat and the web UI show edits with it.

/** One line of a diff. `oldLine` and `newLine` count from 1: for a removed line, its number in the
 * old text; for an added one, in the new; for an unchanged one, both. `undiffed`: a line of a middle
 * too large to diff (MAX_CELLS), all of whose lines are given as removed and added, changed or not. */
export type DiffLine = { kind: "same" | "removed" | "added"; text: string; oldLine: number; newLine: number; undiffed?: true };

/** Past this many cells (old lines × new lines, after the common start and end) the middle is shown
 * as all removed, then all added: the table would cost more than the display is worth. */
const MAX_CELLS = 4_000_000;

/** The lines of `text`: "\r\n" and "\r" end a line as "\n" does; a final line end starts no line, so
 * "" has none. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The lines of `before` and `after` in order, each kept, removed or added; within a change the
 * removed lines come before the added ones. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  const { start, end } = sharedEnds(a, b);
  const [n, m] = [a.length - start - end, b.length - start - end];
  const undiffed = n * m > MAX_CELLS;
  const changed = undiffed ? [...Array<DiffLine["kind"]>(n).fill("removed"), ...Array<DiffLine["kind"]>(m).fill("added")] : middle(a.slice(start, a.length - end), b.slice(start, b.length - end));
  const kinds = [...Array(start).fill("same"), ...changed, ...Array(end).fill("same")];
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  for (const kind of kinds as DiffLine["kind"][]) {
    const text = kind === "added" ? b[j] : a[i];
    out.push({ kind, text, oldLine: i + 1, newLine: j + 1, ...(undiffed && kind !== "same" && { undiffed: true as const }) });
    if (kind !== "added") i++;
    if (kind !== "removed") j++;
  }
  return out;
}

/** How many lines `a` and `b` share at their start and, after it, at their end. */
function sharedEnds(a: readonly string[], b: readonly string[]): { start: number; end: number } {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  return { start, end };
}

/** How many lines a diff of `a` → `b` adds and removes, without saying which: all but their longest
 * common subsequence, in memory of one row of its table; a middle (after the shared start and end)
 * of more than `maxCells` pairs of lines counts whole. */
export function changeCounts(a: readonly string[], b: readonly string[], maxCells: number): { added: number; removed: number } {
  const { start, end } = sharedEnds(a, b);
  const midA = a.slice(start, a.length - end);
  const midB = b.slice(start, b.length - end);
  const common = midA.length * midB.length <= maxCells ? commonLength(midA, midB) : 0;
  return { added: midB.length - common, removed: midA.length - common };
}

function commonLength(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const line of a) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 0; j < b.length; j++) row[j + 1] = line === b[j] ? previous[j] + 1 : Math.max(previous[j + 1], row[j]);
    previous = row;
  }
  return previous[b.length];
}

/** The kinds of the lines of `a` → `b` (at most MAX_CELLS of them multiplied), by a table of the longest common subsequences of their ends. */
function middle(a: readonly string[], b: readonly string[]): DiffLine["kind"][] {
  const [n, m] = [a.length, b.length];
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  const kinds: DiffLine["kind"][] = [];
  let [i, j] = [0, 0];
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      kinds.push("same");
      i++;
      j++;
    } else if (i < n && (j === m || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) {
      kinds.push("removed");
      i++;
    } else {
      kinds.push("added");
      j++;
    }
  }
  return kinds;
}

/** The changed lines of `lines` with up to `context` unchanged lines on either side, as hunks: two
 * changes further apart than twice `context` are in hunks of their own. None if nothing changed. */
export function hunks(lines: readonly DiffLine[], context = 3): DiffLine[][] {
  const out: DiffLine[][] = [];
  let current: DiffLine[] | undefined;
  let lastChange = -Infinity;
  lines.forEach((line, index) => {
    if (line.kind === "same") return;
    if (current && index - lastChange - 1 <= 2 * context) current.push(...lines.slice(lastChange + 1, index + 1));
    else {
      if (current) current.push(...lines.slice(lastChange + 1, lastChange + 1 + context));
      current = [...lines.slice(Math.max(0, index - context), index + 1)];
      out.push(current);
    }
    lastChange = index;
  });
  if (current) current.push(...lines.slice(lastChange + 1, lastChange + 1 + context));
  return out;
}
