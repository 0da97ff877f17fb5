import { test } from "node:test";
import assert from "node:assert/strict";
import { editRows, rowText } from "./edit-rows.ts";

const shown = (rows: ReturnType<typeof editRows>) => rows?.map(rowText);

test("an Edit shows the lines it removes and adds, with a few kept around them", () => {
  const old_string = "a\nb\nc\nd\ne\nf\ng\nh";
  const new_string = "a\nb\nc\nd\nE\nf\ng\nh";
  assert.deepEqual(shown(editRows({ name: "Edit", input: { file_path: "x", old_string, new_string } })), ["  b", "  c", "  d", "- e", "+ E", "  f", "  g", "  h"]);
});

test("a MultiEdit shows each edit, a gap between them; a Write adds every line", () => {
  const edits = [{ old_string: "one", new_string: "uno" }, { old_string: "two\n", new_string: "" }];
  assert.deepEqual(shown(editRows({ name: "MultiEdit", input: { file_path: "x", edits } })), ["- one", "+ uno", "…", "- two"]);
  assert.deepEqual(shown(editRows({ name: "Write", input: { file_path: "x", content: "<b>hi</b>\nthere\n" } })), ["+ <b>hi</b>", "+ there"]);
  assert.deepEqual(editRows({ name: "Write", input: { file_path: "x", content: "" } }), []);
});

test("another tool, or an input that is no edit's, has no diff", () => {
  assert.equal(editRows({ name: "Bash", input: { command: "ls", file_path: "x" } }), undefined);
  assert.equal(editRows({ name: "Edit", input: { file_path: "x", old_string: 1, new_string: "" } }), undefined);
  assert.equal(editRows({ name: "Edit", input: { old_string: "a", new_string: "b" } }), undefined);
  assert.equal(editRows({ name: "MultiEdit", input: { file_path: "x", edits: [{ old_string: "a" }] } }), undefined);
  assert.equal(editRows({ name: "MultiEdit", input: { file_path: "x", edits: "a" } }), undefined);
  assert.equal(editRows({ name: "Write", input: undefined }), undefined);
});
