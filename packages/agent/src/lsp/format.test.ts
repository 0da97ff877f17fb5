import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { formatHover, formatLocations, formatSymbolList, LineSource, MAX_QUOTED_FILE_BYTES, MAX_RESULTS } from "./format.ts";

const range = (line: number, character: number) => ({ start: { line, character }, end: { line, character: character + 1 } });

test("hover contents of every shape read as text; none is No results", () => {
  assert.equal(formatHover({ contents: { kind: "plaintext", value: "a number" } }), "a number");
  assert.equal(formatHover({ contents: ["plain", { language: "ts", value: "let x: number" }] }), "plain\n\n```ts\nlet x: number\n```");
  assert.equal(formatHover(null), "No results: no hover information here.");
  assert.equal(formatHover({ contents: [] }), "No results: no hover information here.");
});

test("locations and links show path:line:col with the line, columns in characters; beyond the cap, how many were left out", () => {
  const uri = "file:///work/p/src/a.ts";
  const lines = new LineSource("/work/p", { uri, text: "const 😀 = 1; let x = 😀;\n" });
  // The second 😀 starts at UTF-16 offset 22: 21 characters come before it.
  assert.equal(formatLocations([{ targetUri: uri, targetRange: range(0, 0), targetSelectionRange: range(0, 22) }], lines, "definition"), "Found 1 definition:\nsrc/a.ts:1:22: const 😀 = 1; let x = 😀;");
  assert.equal(formatLocations({ uri: "untitled:x", range: range(4, 2) }, lines, "definition"), "Found 1 definition:\nuntitled:x:5:3");
  assert.equal(formatLocations(null, lines, "reference"), "No results: no reference found.");
  const many = Array.from({ length: MAX_RESULTS + 5 }, (_, i) => ({ name: `s${i}`, kind: 12, location: { uri: "file:///elsewhere/b.ts" } }));
  const text = formatSymbolList(many, lines).split("\n");
  assert.equal(text[0], `Found ${MAX_RESULTS + 5} symbols:`);
  assert.equal(text[1], "Function s0 — /elsewhere/b.ts");
  assert.equal(text.at(-1), "… and 5 more not shown.");
  assert.equal(text.length, MAX_RESULTS + 2);
});

test("a result in a file past the quoting cap shows its place only; the file is not read", () => {
  const dir = mkdtempSync(join(tmpdir(), "lsp-format-"));
  try {
    const big = join(dir, "bundle.js");
    const line = `${"x".repeat(99)}\n`;
    writeFileSync(big, `function found() {}\n${line.repeat(Math.ceil(MAX_QUOTED_FILE_BYTES / line.length) + 1)}`);
    const small = join(dir, "small.js");
    writeFileSync(small, "function found() {}\n");
    const lines = new LineSource(dir);
    const text = formatLocations([{ uri: pathToFileURL(big).href, range: range(0, 9) }, { uri: pathToFileURL(small).href, range: range(0, 9) }], lines, "definition");
    assert.equal(text, "Found 2 definitions in 2 files:\nbundle.js:1:10\nsmall.js:1:10: function found() {}");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
