import { test } from "node:test";
import assert from "node:assert/strict";
import { changeLabel, editChange, formatChange, type ChangeStyle } from "./edit-diff.ts";

const plain: ChangeStyle = { width: 80, maxRows: 20, red: (t) => t, green: (t) => t, dim: (t) => t };
const shown = (change: ReturnType<typeof editChange>, style: Partial<ChangeStyle> = {}) => (change ? formatChange(change, { ...plain, ...style }) : undefined);

/** The Edit tool's output: its summary, then the changed region in Read's numbered format. */
function editOutput(file: string[], from: number, to: number): string {
  const region = file.slice(from - 1, to).map((text, i) => `${String(from + i).padStart(6)}\t${text}`);
  return `Edited src/app.ts: replaced 1 occurrence. The changed region now reads:\n${region.join("\n")}`;
}

const FILE = ["import x from 'x';", "", "function f() {", "  const a = 1;", "  const b = 2;", "  const y = 3;", "  const z = 4;", "  return a + b + y;", "}", "", "export { f };"];

test("an edit placed by the tool's output shows whole lines with their numbers, removed then added, and counts them", () => {
  const output = editOutput(FILE, 3, 10);
  const change = editChange("Edit", { file_path: "/p/src/app.ts", old_string: "const y = 2;", new_string: "const y = 3;\n  const z = 4;" }, output, "/p");
  assert.deepEqual(shown(change), [
    "Updated src/app.ts with 2 additions and 1 removal",
    "3    function f() {",
    "4      const a = 1;",
    "5      const b = 2;",
    "6 -    const y = 2;",
    "6 +    const y = 3;",
    "7 +    const z = 4;",
    "8      return a + b + y;",
    "9    }",
  ]);
});

test("a word changed inside a line shows the line before and after", () => {
  const file = ["a", "b", "c", "let total = 10;", "d"];
  const change = editChange("Edit", { file_path: "app.ts", old_string: "= 1", new_string: "= 10" }, editOutput(file, 1, 5));
  assert.deepEqual(shown(change)?.filter((line) => /[-+] /.test(line)), ["4 -  let total = 1;", "4 +  let total = 10;"]);
});

test("the occurrence changed is the one on the region's fourth line, not an equal line before it", () => {
  const file = ["q", "}", "", "x", "}", "z", "w", "v", "u"];
  const change = editChange("Edit", { file_path: "app.ts", old_string: "y\n", new_string: "}\n" }, editOutput(file, 2, 8));
  assert.deepEqual(shown(change)?.filter((line) => /[-+] /.test(line)), ["5 -  y", "5 +  }"]);
});

test("without a numbered region in the output, old_string and new_string are diffed unnumbered", () => {
  const change = editChange("Edit", { file_path: "a.py", old_string: "x = 1\ny = 2\n", new_string: "x = 1\ny = 3\n" }, "The file a.py has been updated.");
  assert.deepEqual(shown(change), ["Updated a.py with 1 addition and 1 removal", "   x = 1", "-  y = 2", "+  y = 3"]);
  const removal = editChange("Edit", { file_path: "a.py", old_string: "gone\n", new_string: "" }, editOutput(["a", "b"], 1, 2));
  assert.deepEqual(shown(removal), ["Updated a.py with 1 removal", "-  gone"], "a deletion leaves nothing to place");
});

test("replace_all counts every place the output says it changed", () => {
  const change = editChange("Edit", { file_path: "a.ts", old_string: "foo", new_string: "bar", replace_all: true }, "Edited a.ts: replaced 3 occurrences. The changed region now reads:\n     1\tbar()");
  assert.equal(shown(change)?.[0], "Updated a.ts with 3 additions and 3 removals in 3 places");
});

test("MultiEdit shows each edit's change, apart, and the counts of all", () => {
  const input = { file_path: "m.ts", edits: [{ old_string: "a = 1", new_string: "a = 2" }, { old_string: "b\nc", new_string: "b", replace_all: false }] };
  assert.deepEqual(shown(editChange("MultiEdit", input, "Applied 2 edits to m.ts:")), ["Updated m.ts with 1 addition and 2 removals", "-  a = 1", "+  a = 2", "...", "   b", "-  c"]);
});

test("Write shows a new file's first lines numbered, and of a file overwritten only how many lines it wrote", () => {
  assert.deepEqual(shown(editChange("Write", { file_path: "/p/notes.md", content: "# Notes\n\nfirst\n" }, "Created notes.md (3 lines).", "/p")), ["Wrote 3 lines to notes.md", "1    # Notes", "2    ", "3    first"]);
  assert.deepEqual(shown(editChange("Write", { file_path: "notes.md", content: "one\ntwo" }, "Overwrote notes.md (2 lines).")), ["Wrote 2 lines to notes.md"]);
  assert.deepEqual(shown(editChange("Write", { file_path: "empty", content: "" }, "Created empty (0 lines).")), ["Wrote 0 lines to empty"]);
  assert.deepEqual(shown(editChange("Edit", { file_path: "new.txt", old_string: "", new_string: "hi\n" }, "Created new.txt.")), ["Wrote 1 line to new.txt", "1    hi"]);
});

test("at most maxRows rows, then how many more; all of them when maxRows is Infinity", () => {
  const content = Array.from({ length: 45 }, (_, i) => `line ${i + 1}`).join("\n");
  const change = editChange("Write", { file_path: "long.txt", content }, "Created long.txt (45 lines).");
  const lines = shown(change)!;
  assert.equal(lines.length, 22);
  assert.equal(lines[20], "20    line 20");
  assert.equal(lines[21], "… +25 lines");
  assert.equal(shown(change, { maxRows: Infinity })!.length, 46);
});

test("an edit too large to diff says how many lines it replaced with how many, and shows the first of each", () => {
  // Past the diff's cap (2,001 × 2,001 lines after the common start and end), though 21 changed.
  const old = Array.from({ length: 2100 }, (_, i) => `line ${i}`);
  const changed = old.map((line, i) => (i % 100 === 0 ? `${line} changed` : line));
  const input = { file_path: "big.txt", old_string: ["top", ...old, "end"].join("\n"), new_string: ["top", ...changed, "end"].join("\n") };
  const lines = shown(editChange("Edit", input, "ok"), { maxRows: Infinity })!;
  assert.equal(lines[0], "Replaced 2,001 lines with 2,001 lines in big.txt");
  assert.deepEqual(lines.slice(1), [
    "   top",
    ...old.slice(0, 10).map((line) => `-  ${line}`),
    "...",
    ...changed.slice(0, 10).map((line) => `+  ${line}`),
    "...",
    ...old.slice(2001, 2004).map((line) => `   ${line}`),
  ]);
  const twice = editChange("Edit", { ...input, replace_all: true }, "Edited big.txt: replaced 2 occurrences.");
  assert.equal(twice?.summary, "Replaced 4,002 lines with 4,002 lines in big.txt in 2 places");
  const multi = editChange("MultiEdit", { file_path: "big.txt", edits: [{ old_string: "a", new_string: "b" }, input] }, "Applied 2 edits to big.txt:");
  assert.equal(multi?.summary, "Replaced 2,002 lines with 2,002 lines in big.txt");
});

test("rows longer than the width are cut by terminal columns, wide characters and emoji whole", () => {
  const change = editChange("Edit", { file_path: "w.txt", old_string: "x".repeat(100), new_string: "名前".repeat(30) }, "ok");
  assert.deepEqual(shown(change, { width: 20 })!.slice(1), [`-  ${"x".repeat(16)}…`, `+  ${"名前".repeat(4)}…`]);
  const emoji = editChange("Edit", { file_path: "w.txt", old_string: "a", new_string: "🎉".repeat(10) }, "ok");
  assert.equal(shown(emoji, { width: 9 })![2], "+  🎉🎉…");
});

test("removed rows are red and added ones green when colour is on; kept ones dim", () => {
  const style = { red: (t: string) => `<r>${t}</r>`, green: (t: string) => `<g>${t}</g>`, dim: (t: string) => `<d>${t}</d>` };
  const change = editChange("Edit", { file_path: "a", old_string: "k\nold", new_string: "k\nnew" }, "ok");
  assert.deepEqual(shown(change, style), ["Updated a with 1 addition and 1 removal", "<d>   k</d>", "<r>-  old</r>", "<g>+  new</g>"]);
});

test("escape sequences in the text edited never reach the terminal", () => {
  const change = editChange("Edit", { file_path: "a\x1b[2J", old_string: "a", new_string: "b\x1b]52;c;eA==\x07" }, "ok");
  assert.ok(shown(change)!.every((line) => !/[\x1b\x07]/.test(line)), String(shown(change)));
});

test("calls that are not edits, or whose input is not an edit's, are left to be shown by their output", () => {
  assert.equal(editChange("Bash", { command: "ls" }, "a"), undefined);
  assert.equal(editChange("Edit", { file_path: "a", old_string: "x", new_string: 3 }, "ok"), undefined);
  assert.equal(editChange("Edit", undefined, "ok"), undefined);
  assert.equal(editChange("MultiEdit", { file_path: "a", edits: [null] }, "ok"), undefined);
  assert.equal(editChange("Write", { file_path: "a" }, "ok"), undefined);
  assert.deepEqual(["Edit", "MultiEdit", "Write", "Bash"].map(changeLabel), ["Update", "Update", "Write", "Bash"]);
});
