import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { callTool, tempWorkspace } from "../testing/fixtures.ts";
import { multiEditTool } from "./multi-edit.ts";

async function fileWith(t: import("node:test").TestContext, content: string) {
  const cwd = await tempWorkspace(t);
  const file = path.join(cwd, "code.ts");
  await fs.writeFile(file, content);
  return { cwd, read: () => fs.readFile(file, "utf8") };
}

test("MultiEdit applies its edits in order, each to the result of the previous ones", async (t) => {
  const { cwd, read } = await fileWith(t, "let a = 1;\nlet b = a;\nconsole.log(a, b);\n");
  const out = await callTool(
    multiEditTool,
    {
      file_path: "code.ts",
      edits: [
        { old_string: "let a = 1;", new_string: "let first = 1;" },
        { old_string: "a", new_string: "first", replace_all: true },
        { old_string: "let b = first;", new_string: "const b = first;" },
      ],
    },
    cwd,
  );
  assert.equal(out.isError, undefined);
  assert.equal(await read(), "let first = 1;\nconst b = first;\nconsole.log(first, b);\n");
  assert.equal(
    out.content,
    'Applied 3 edits to code.ts:\n1. replaced "let a = 1;" with "let first = 1;"\n2. replaced "a" with "first" (2 occurrences)\n3. replaced "let b = first;" with "const b = first;"',
  );
});

test("MultiEdit is all or nothing: one failing edit leaves the file untouched", async (t) => {
  const { cwd, read } = await fileWith(t, "one\ntwo\ntwo\n");
  const missing = await callTool(multiEditTool, { file_path: "code.ts", edits: [{ old_string: "one", new_string: "1" }, { old_string: "three", new_string: "3" }] }, cwd);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /^Edit 2 of 2: old_string was not found in code\.ts\..*\nNo edits were applied; code\.ts is unchanged\.$/s);

  const ambiguous = await callTool(multiEditTool, { file_path: "code.ts", edits: [{ old_string: "one", new_string: "1" }, { old_string: "two", new_string: "2" }] }, cwd);
  assert.match(ambiguous.content, /^Edit 2 of 2: old_string occurs 2 times in code\.ts/);

  const same = await callTool(multiEditTool, { file_path: "code.ts", edits: [{ old_string: "one", new_string: "one" }] }, cwd);
  assert.match(same.content, /^Edit 1 of 1: old_string and new_string are identical/);

  const chained = await callTool(multiEditTool, { file_path: "code.ts", edits: [{ old_string: "one", new_string: "one two" }, { old_string: "one two", new_string: "x" }] }, cwd);
  assert.match(chained.content, /^Edit 2 of 2: old_string is part of the new_string of edit 1/);
  assert.equal(await read(), "one\ntwo\ntwo\n");

  const empty = await callTool(multiEditTool, { file_path: "code.ts", edits: [] }, cwd);
  assert.equal(empty.isError, true);
  assert.match(empty.content, /parameter "edits"/);
});

test("MultiEdit creates a new file when the first edit's old_string is empty", async (t) => {
  const cwd = await tempWorkspace(t);
  const out = await callTool(
    multiEditTool,
    { file_path: "src/new.ts", edits: [{ old_string: "", new_string: "export const x = 1;\n" }] },
    cwd,
  );
  assert.deepEqual(out, { content: 'Created the file with 1 edit to src/new.ts:\n1. wrote "export const x = 1;\\n"' });
  assert.equal(await fs.readFile(path.join(cwd, "src/new.ts"), "utf8"), "export const x = 1;\n");

  const later = await callTool(multiEditTool, { file_path: "other.ts", edits: [{ old_string: "", new_string: "a" }, { old_string: "", new_string: "b" }] }, cwd);
  assert.match(later.content, /^Edit 2 of 2: old_string is empty\. Only the first edit may have an empty old_string/);

  const missing = await callTool(multiEditTool, { file_path: "absent.ts", edits: [{ old_string: "a", new_string: "b" }] }, cwd);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /File does not exist: absent\.ts/);
});
