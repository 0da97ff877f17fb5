import assert from "node:assert/strict";
import { test } from "node:test";
import { formatHover, formatLocations, formatSymbolList, LineSource, MAX_RESULTS } from "./format.ts";

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
