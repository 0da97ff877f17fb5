import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { callTool, tempWorkspace } from "../testing/fixtures.ts";
import { readTool } from "./read.ts";
import { createToolState } from "./state.ts";
import { callWithState } from "./test-helpers.ts";

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

  // UTF-16 with its byte-order mark, as Windows tools write text, in either byte order.
  await fs.writeFile(path.join(cwd, "le.txt"), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo\r\nwörld\r\n", "utf16le")]));
  const le = await callTool(readTool, { file_path: "le.txt" }, cwd);
  assert.equal(le.isError, undefined, le.content);
  assert.equal(le.content, "     1\théllo\n     2\twörld");
  // Big-endian, with a character written as two UTF-16 units that the read's chunks split (the
  // first chunk ends after its first unit).
  const beText = `${"aaaaaaaaa\n".repeat(3276)}abcdef😀\nlast`;
  await fs.writeFile(path.join(cwd, "be.txt"), Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(beText, "utf16le").swap16()]));
  const be = await callTool(readTool, { file_path: "be.txt", offset: 3277 }, cwd);
  assert.equal(be.isError, undefined, be.content);
  assert.equal(be.content, "  3277\tabcdef😀\n  3278\tlast");
  const beStart = await callTool(readTool, { file_path: "be.txt", limit: 1 }, cwd);
  assert.match(beStart.content, /^     1\taaaaaaaaa\n/);

  const bad = await callTool(readTool, { file_path: "x", offset: 0 }, cwd);
  assert.equal(bad.isError, true);
  assert.match(bad.content, /parameter "offset"/);
});

const PNG_1PX = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");

test("Read returns an image as an image block, with the type its content shows", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.writeFile(path.join(cwd, "shot.png"), PNG_1PX);
  const out = await callTool(readTool, { file_path: "shot.png" }, cwd);
  assert.equal(out.isError, undefined);
  assert.equal(out.content, `Read image shot.png (image/png, ${PNG_1PX.length} bytes).`);
  assert.deepEqual(out.blocks, [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1PX.toString("base64") } }]);

  // A JPEG saved with a .png name is declared as what it is.
  await fs.writeFile(path.join(cwd, "photo.PNG"), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]));
  const jpeg = await callTool(readTool, { file_path: "photo.PNG" }, cwd);
  assert.equal(jpeg.blocks?.[0].type === "image" && jpeg.blocks[0].source.media_type, "image/jpeg");

  await fs.writeFile(path.join(cwd, "fake.gif"), "not an image");
  const fake = await callTool(readTool, { file_path: "fake.gif" }, cwd);
  assert.equal(fake.isError, true);
  assert.match(fake.content, /fake\.gif has an image file extension, but its content is not a PNG, JPEG, GIF or WebP image/);
});

test("Read refuses an image above the size limit that cannot be shrunk, saying why", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.writeFile(path.join(cwd, "big.webp"), Buffer.concat([Buffer.from("RIFF\0\0\0\0WEBP"), Buffer.alloc(3000)]));
  const state = createToolState({ limits: { maxImageBytes: 2048 } });
  const out = await callWithState(readTool, { file_path: "big.webp" }, cwd, state);
  assert.equal(out.isError, true);
  assert.equal(out.blocks, undefined);
  assert.match(out.content, /^big\.webp is 2\.9 KB, more than the model takes, and could not be shrunk: it cannot be decoded as a WebP image/);
  const fits = await callWithState(readTool, { file_path: "big.webp" }, cwd, createToolState());
  assert.equal(fits.blocks?.[0].type === "image" && fits.blocks[0].source.media_type, "image/webp");
});

test("Read shows a notebook's cells with their ids, sources and outputs", async (t) => {
  const cwd = await tempWorkspace(t);
  const notebook = {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: { language_info: { name: "python" } },
    cells: [
      { cell_type: "markdown", id: "intro", metadata: {}, source: ["# Title\n", "Some text"] },
      {
        cell_type: "code",
        id: "calc",
        metadata: {},
        execution_count: 3,
        source: "print(1 + 1)\n1 / 0",
        outputs: [
          { output_type: "stream", name: "stdout", text: ["2\n"] },
          { output_type: "error", ename: "ZeroDivisionError", evalue: "division by zero", traceback: ["\u001b[0;31mZeroDivisionError\u001b[0m: division by zero"] },
        ],
      },
      {
        cell_type: "code",
        metadata: {},
        execution_count: 4,
        source: "plot()",
        outputs: [
          { output_type: "execute_result", data: { "text/plain": ["<Figure>"] }, metadata: {}, execution_count: 4 },
          { output_type: "display_data", data: { "image/png": PNG_1PX.toString("base64") + "\n", "text/plain": ["<Figure size 1x1>"] }, metadata: {} },
        ],
      },
    ],
  };
  await fs.writeFile(path.join(cwd, "analysis.ipynb"), JSON.stringify(notebook));
  const out = await callTool(readTool, { file_path: "analysis.ipynb" }, cwd);
  assert.equal(out.isError, undefined);
  const expectedText = [
    '<cell id="intro" cell_type="markdown">\n# Title\nSome text\n</cell>',
    '<cell id="calc" cell_type="code" language="python" execution_count="3">\nprint(1 + 1)\n1 / 0\n</cell>',
    '<output cell_id="calc">\n2\n</output>',
    '<output cell_id="calc">\nZeroDivisionError: division by zero\n</output>',
    '<cell id="cell-2" cell_type="code" language="python" execution_count="4">\nplot()\n</cell>',
    '<output cell_id="cell-2">\n<Figure>\n</output>',
    '<output cell_id="cell-2">[image/png image]</output>',
  ].join("\n");
  assert.deepEqual(out.blocks, [
    { type: "text", text: expectedText },
    { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_1PX.toString("base64") } },
  ]);
  assert.equal(out.content, expectedText);

  await fs.writeFile(path.join(cwd, "broken.ipynb"), "{ not json");
  const broken = await callTool(readTool, { file_path: "broken.ipynb" }, cwd);
  assert.equal(broken.isError, undefined);
  assert.match(broken.content, /^\(broken\.ipynb is not a valid notebook: it is not JSON .*It is shown as plain text\.\)\n\n {5}1\t\{ not json$/);
});
