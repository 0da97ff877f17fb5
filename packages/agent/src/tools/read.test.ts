import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { callTool, tempWorkspace } from "../testing/fixtures.ts";
import { readTool } from "./read.ts";

test("Read numbers lines like cat -n and resolves relative paths against cwd", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.mkdir(path.join(cwd, "src"));
  await fs.writeFile(path.join(cwd, "src", "a.ts"), "const a = 1;\r\n\tindented\n\nlast");
  const relative = await callTool(readTool, { file_path: "src/a.ts" }, cwd);
  assert.deepEqual(relative, { content: "     1\tconst a = 1;\n     2\t\tindented\n     3\t\n     4\tlast" });
  const absolute = await callTool(readTool, { file_path: path.join(cwd, "src", "a.ts") }, "/");
  assert.equal(absolute.content, relative.content);
});

test("Read pages with offset and limit and says where to continue", async (t) => {
  const cwd = await tempWorkspace(t);
  const lines = Array.from({ length: 2500 }, (_, i) => `L${i + 1}`);
  await fs.writeFile(path.join(cwd, "long.txt"), lines.join("\n") + "\n");

  const first = await callTool(readTool, { file_path: "long.txt" }, cwd);
  const shown = first.content.split("\n").filter((l) => /^\s+\d+\t/.test(l));
  assert.equal(shown.length, 2000);
  assert.equal(shown[1999], "  2000\tL2000");
  assert.match(first.content, /Call Read with offset 2001 to continue/);

  const page = await callTool(readTool, { file_path: "long.txt", offset: 10, limit: 3 }, cwd);
  assert.equal(page.content, "    10\tL10\n    11\tL11\n    12\tL12\n\n(More lines follow. Call Read with offset 13 to continue.)");

  const tail = await callTool(readTool, { file_path: "long.txt", offset: 2499 }, cwd);
  assert.equal(tail.content, "  2499\tL2499\n  2500\tL2500");

  const past = await callTool(readTool, { file_path: "long.txt", offset: 3000 }, cwd);
  assert.match(past.content, /has 2500 lines; offset 3000 is past the end/);
});

test("Read cuts very long lines and stops before its output grows too large", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.writeFile(path.join(cwd, "wide.txt"), `${"w".repeat(5000)}\nshort\n`);
  const wide = await callTool(readTool, { file_path: "wide.txt" }, cwd);
  assert.match(wide.content, /^ {5}1\tw{2000}… \[line cut at 2000 characters\]\n {5}2\tshort$/);

  await fs.writeFile(path.join(cwd, "big.txt"), Array.from({ length: 1500 }, () => "y".repeat(100)).join("\n"));
  const big = await callTool(readTool, { file_path: "big.txt" }, cwd);
  assert.ok(big.content.length <= 30_000, `output is ${big.content.length} characters`);
  const stop = /Output stopped at line (\d+) to stay within the size limit\. Call Read with offset (\d+) to continue/.exec(big.content);
  assert.ok(stop, big.content.slice(-300));
  assert.equal(Number(stop[2]), Number(stop[1]) + 1);
  assert.match(big.content, new RegExp(`\\n\\s+${stop[1]}\\ty+\\n\\n\\(Output stopped`));
});

test("Read reports missing files, directories, empty and binary files", async (t) => {
  const cwd = await tempWorkspace(t);
  const missing = await callTool(readTool, { file_path: "nope/missing.txt" }, cwd);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /File does not exist: nope\/missing\.txt/);

  await fs.mkdir(path.join(cwd, "dir"));
  const dir = await callTool(readTool, { file_path: "dir" }, cwd);
  assert.equal(dir.isError, true);
  assert.match(dir.content, /dir is a directory/);

  await fs.writeFile(path.join(cwd, "empty.txt"), "");
  const empty = await callTool(readTool, { file_path: "empty.txt" }, cwd);
  assert.equal(empty.isError, undefined);
  assert.match(empty.content, /exists but is empty/);

  await fs.writeFile(path.join(cwd, "blob.bin"), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
  const binary = await callTool(readTool, { file_path: "blob.bin" }, cwd);
  assert.equal(binary.isError, true);
  assert.match(binary.content, /binary file/);

  const bad = await callTool(readTool, { file_path: "x", offset: 0 }, cwd);
  assert.equal(bad.isError, true);
  assert.match(bad.content, /parameter "offset"/);
});
