import { test } from "node:test";
import assert from "node:assert/strict";
import { diffLines, hunks, splitLines, type DiffLine } from "./line-diff.ts";

const marks = (lines: readonly DiffLine[]) => lines.map((line) => `${line.kind === "same" ? " " : line.kind === "removed" ? "-" : "+"}${line.text}`);

test("a changed line is removed then added between the lines kept, each numbered in its own text", () => {
  const lines = diffLines("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n");
  assert.deepEqual(marks(lines), [" a", "-b", "+B", " c", " d", "+e"]);
  assert.deepEqual(
    lines.map((line) => [line.oldLine, line.newLine]),
    [[1, 1], [2, 2], [3, 2], [3, 3], [4, 4], [5, 5]],
  );
});

test("the lines kept are a longest common subsequence, and the diff gives back both texts", () => {
  let seed = 7;
  const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const lcsLength = (a: string[], b: string[]): number => {
    const memo = new Map<string, number>();
    const go = (i: number, j: number): number => {
      if (i === a.length || j === b.length) return 0;
      const key = `${i},${j}`;
      if (!memo.has(key)) memo.set(key, a[i] === b[j] ? 1 + go(i + 1, j + 1) : Math.max(go(i + 1, j), go(i, j + 1)));
      return memo.get(key)!;
    };
    return go(0, 0);
  };
  for (let round = 0; round < 300; round++) {
    const a = Array.from({ length: random(9) }, () => "xyzw"[random(4)]);
    const b = Array.from({ length: random(9) }, () => "xyzw"[random(4)]);
    const lines = diffLines(a.join("\n"), b.join("\n"));
    assert.deepEqual(lines.filter((l) => l.kind !== "added").map((l) => l.text), a, `${a} → ${b}`);
    assert.deepEqual(lines.filter((l) => l.kind !== "removed").map((l) => l.text), b, `${a} → ${b}`);
    assert.equal(lines.filter((l) => l.kind === "same").length, lcsLength(a, b), `${a} → ${b}`);
  }
});

test("empty texts: nothing from nothing, all added from nothing, all removed to nothing", () => {
  assert.deepEqual(diffLines("", ""), []);
  assert.deepEqual(marks(diffLines("", "one\ntwo")), ["+one", "+two"]);
  assert.deepEqual(marks(diffLines("one\n", "")), ["-one"]);
  assert.deepEqual(marks(diffLines("\n", "")), ["-"], "a text of one empty line has one line");
});

test("Windows and old Mac line ends are line ends, so only the text of a line counts", () => {
  assert.deepEqual(splitLines("a\r\nb\rc\n"), ["a", "b", "c"]);
  assert.deepEqual(marks(diffLines("a\r\nb\r\n", "a\nB\n")), [" a", "-b", "+B"]);
});

test("lines of any script and emoji are compared whole", () => {
  assert.deepEqual(marks(diffLines("名前 = 1\n🎉 done\nüber", "名前 = 2\n🎉 done\nüber")), ["-名前 = 1", "+名前 = 2", " 🎉 done", " über"]);
  assert.deepEqual(marks(diffLines("e\u0301", "é")), ["-e\u0301", "+é"], "a combining mark is not its precomposed letter");
});

test("texts too large for the table are shown as all their middle removed, then added", () => {
  const a = Array.from({ length: 2100 }, (_, i) => `a${i}`);
  const b = Array.from({ length: 2100 }, (_, i) => `b${i}`);
  const lines = diffLines(["top", ...a, "end"].join("\n"), ["top", ...b, "end"].join("\n"));
  assert.equal(lines.length, 4202);
  assert.deepEqual(marks([lines[0], lines[1], lines[2100], lines[2101], lines.at(-1)!]), [" top", "-a0", "-a2099", "+b0", " end"]);
  assert.deepEqual(lines.map((line) => line.undiffed === true).filter(Boolean).length, 4200, "the middle is marked as not diffed");
  assert.equal(diffLines("a\nb", "a\nc").some((line) => line.undiffed), false);
});

test("hunks keep three unchanged lines around each change, and split changes further apart", () => {
  const old = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  const changed = old.map((line, i) => (i === 4 || i === 16 ? `${line}!` : line));
  const parts = hunks(diffLines(old.join("\n"), changed.join("\n")));
  assert.deepEqual(parts.map(marks), [
    [" line 2", " line 3", " line 4", "-line 5", "+line 5!", " line 6", " line 7", " line 8"],
    [" line 14", " line 15", " line 16", "-line 17", "+line 17!", " line 18", " line 19", " line 20"],
  ]);
  const near = old.map((line, i) => (i === 4 || i === 10 ? `${line}!` : line));
  assert.equal(hunks(diffLines(old.join("\n"), near.join("\n"))).length, 1, "six lines apart: one hunk");
  assert.deepEqual(hunks(diffLines("same", "same")), []);
});
