import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { callTool, tempWorkspace } from "../testing/fixtures.ts";
import { editTool } from "./edit.ts";
import { multiEditTool } from "./multi-edit.ts";
import { notebookEditTool } from "./notebook/notebook-edit.ts";

async function fileWith(t: import("node:test").TestContext, content: string) {
  const cwd = await tempWorkspace(t);
  const file = path.join(cwd, "code.ts");
  await fs.writeFile(file, content);
  return { cwd, file, read: () => fs.readFile(file, "utf8") };
}

test("Edit replaces a unique string and shows the changed region with line numbers", async (t) => {
  const { cwd, read } = await fileWith(t, "a\nb\nc\nfunction old() {}\nd\ne\nf\ng\nh\n");
  const out = await callTool(editTool, { file_path: "code.ts", old_string: "function old() {}", new_string: "function renamed() {\n  return 1;\n}" }, cwd);
  assert.equal(out.isError, undefined);
  assert.equal(
    out.content,
    "Edited code.ts: replaced 1 occurrence. The changed region now reads:\n" +
      ["     1\ta", "     2\tb", "     3\tc", "     4\tfunction renamed() {", "     5\t  return 1;", "     6\t}", "     7\td", "     8\te", "     9\tf"].join("\n"),
  );
  assert.equal(await read(), "a\nb\nc\nfunction renamed() {\n  return 1;\n}\nd\ne\nf\ng\nh\n");
});

test("Edit refuses an ambiguous string unless replace_all is set", async (t) => {
  const { cwd, read } = await fileWith(t, "let x = 1;\nlet y = x + x;\n");
  const ambiguous = await callTool(editTool, { file_path: "code.ts", old_string: "x", new_string: "count" }, cwd);
  assert.equal(ambiguous.isError, true);
  assert.match(ambiguous.content, /occurs 3 times in code\.ts\. Include more surrounding lines to make it unique, or set replace_all/);
  assert.equal(await read(), "let x = 1;\nlet y = x + x;\n");

  const all = await callTool(editTool, { file_path: "code.ts", old_string: "x", new_string: "$&count", replace_all: true }, cwd);
  assert.match(all.content, /replaced 3 occurrences/);
  assert.equal(await read(), "let $&count = 1;\nlet y = $&count + $&count;\n");
});

test("Edit explains a missing string, identical strings and a missing file", async (t) => {
  const { cwd, read } = await fileWith(t, "  indented();\n");
  const notFound = await callTool(editTool, { file_path: "code.ts", old_string: "indented();\n  more", new_string: "x" }, cwd);
  assert.equal(notFound.isError, true);
  assert.match(notFound.content, /old_string was not found in code\.ts\. It must match the file exactly, including whitespace/);

  const same = await callTool(editTool, { file_path: "code.ts", old_string: "indented", new_string: "indented" }, cwd);
  assert.equal(same.isError, true);
  assert.match(same.content, /identical/);
  assert.equal(await read(), "  indented();\n");

  const missing = await callTool(editTool, { file_path: "other.ts", old_string: "a", new_string: "b" }, cwd);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /File does not exist: other\.ts\. Check the path, or use Write to create a new file/);
});

test("Edit with an empty old_string creates a new file but will not clobber one with content", async (t) => {
  const { cwd, read } = await fileWith(t, "keep me\n");
  const created = await callTool(editTool, { file_path: "fresh/new.ts", old_string: "", new_string: "export {};\n" }, cwd);
  assert.deepEqual(created, { content: "Created fresh/new.ts." });
  assert.equal(await fs.readFile(path.join(cwd, "fresh/new.ts"), "utf8"), "export {};\n");

  const refused = await callTool(editTool, { file_path: "code.ts", old_string: "", new_string: "replaced" }, cwd);
  assert.equal(refused.isError, true);
  assert.match(refused.content, /already has content/);
  assert.equal(await read(), "keep me\n");
});

test("Edit matches across Windows line endings and keeps them", async (t) => {
  const { cwd, read } = await fileWith(t, "one\r\ntwo\r\nthree\r\n");
  const out = await callTool(editTool, { file_path: "code.ts", old_string: "one\ntwo", new_string: "1\n2" }, cwd);
  assert.equal(out.isError, undefined);
  assert.equal(await read(), "1\r\n2\r\nthree\r\n");
});

test("Edit gives new lines in a Windows file Windows endings, even when old_string has none", async (t) => {
  const { cwd, read } = await fileWith(t, "first\r\nsecond\r\n");
  await callTool(editTool, { file_path: "code.ts", old_string: "first", new_string: "first\ninserted" }, cwd);
  assert.equal(await read(), "first\r\ninserted\r\nsecond\r\n");
  // A file that mixes both is left as the model wrote it.
  const mixed = await fileWith(t, "a\r\nb\nc\n");
  await callTool(editTool, { file_path: "code.ts", old_string: "b", new_string: "b\nb2" }, mixed.cwd);
  assert.equal(await mixed.read(), "a\r\nb\nb2\nc\n");
});

test("Edit, MultiEdit and NotebookEdit refuse a file that is not UTF-8 rather than rewrite its other bytes", async (t) => {
  const cwd = await tempWorkspace(t);
  const latin1 = Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from("\nversion = 1\n")]);
  await fs.writeFile(path.join(cwd, "notes.txt"), latin1);
  await fs.writeFile(path.join(cwd, "nb.ipynb"), latin1);
  const calls = [
    callTool(editTool, { file_path: "notes.txt", old_string: "version = 1", new_string: "version = 2" }, cwd),
    callTool(multiEditTool, { file_path: "notes.txt", edits: [{ old_string: "version = 1", new_string: "version = 2" }] }, cwd),
    callTool(notebookEditTool, { notebook_path: "nb.ipynb", cell_id: "c", new_source: "x" }, cwd),
  ];
  for (const out of await Promise.all(calls)) {
    assert.equal(out.isError, true);
    assert.match(out.content, /is not UTF-8 text .* Change it through Bash instead/);
  }
  assert.deepEqual(await fs.readFile(path.join(cwd, "notes.txt")), latin1, "byte for byte as it was");
});

test("Edit, MultiEdit and NotebookEdit keep a UTF-8 byte-order mark the file starts with", async (t) => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const { cwd, file } = await fileWith(t, "");
  await fs.writeFile(file, Buffer.concat([bom, Buffer.from("using System;\nclass A {}\n")]));
  const edited = await callTool(editTool, { file_path: "code.ts", old_string: "class A", new_string: "class AA" }, cwd);
  assert.equal(edited.isError, undefined, edited.content);
  assert.deepEqual(await fs.readFile(file), Buffer.concat([bom, Buffer.from("using System;\nclass AA {}\n")]));
  const first = await callTool(multiEditTool, { file_path: "code.ts", edits: [{ old_string: "using System;", new_string: "using System.IO;" }] }, cwd);
  assert.equal(first.isError, undefined, first.content);
  assert.deepEqual(await fs.readFile(file), Buffer.concat([bom, Buffer.from("using System.IO;\nclass AA {}\n")]), "an edit of the first line too");

  const notebook = path.join(cwd, "n.ipynb");
  const cells = { cells: [{ cell_type: "code", id: "c1", metadata: {}, source: ["1"], outputs: [], execution_count: null }], metadata: {}, nbformat: 4, nbformat_minor: 5 };
  await fs.writeFile(notebook, Buffer.concat([bom, Buffer.from(JSON.stringify(cells))]));
  const nb = await callTool(notebookEditTool, { notebook_path: "n.ipynb", cell_id: "c1", new_source: "2" }, cwd);
  assert.equal(nb.isError, undefined, nb.content);
  assert.deepEqual((await fs.readFile(notebook)).subarray(0, 3), bom);
});
