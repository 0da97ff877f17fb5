import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { callTool, tempWorkspace } from "../testing/fixtures.ts";
import type { ToolOutput } from "../types.ts";
import { openPdf } from "./pdf-document.ts";
import { entry, isRef } from "./pdf-syntax.ts";
import { testPdf } from "./pdf-test-support.ts";
import { readTool } from "./read.ts";
import { createToolState } from "./state.ts";
import { callWithState } from "./test-helpers.ts";

/** The PDF the model got, as bytes. */
function sentPdf(out: ToolOutput): Buffer {
  const block = out.blocks?.find((b) => b.type === "document");
  assert.ok(block, `no document block in ${JSON.stringify(out).slice(0, 300)}`);
  assert.equal(block.source.media_type, "application/pdf");
  return Buffer.from(block.source.data, "base64");
}

/** The "Page N" labels drawn by the pages of a PDF, in page order. */
function pageLabels(bytes: Buffer): string[] {
  const doc = openPdf(bytes);
  return doc.pages.map((page) => {
    const contents = entry(page.dict, "Contents");
    assert.ok(isRef(contents));
    const at = doc.objectOffsets().get(contents.num)!.offset;
    return /\((Page \d+)\)/.exec(bytes.toString("latin1", at, at + 200))![1];
  });
}

async function write(cwd: string, name: string, bytes: Buffer | string): Promise<void> {
  await fs.writeFile(path.join(cwd, name), bytes);
}

test("Read gives the model a PDF as a document block, whole, and says how many pages it has", async (t) => {
  const cwd = await tempWorkspace(t);
  const pdf = testPdf(3);
  await write(cwd, "paper.pdf", pdf);
  const out = await callTool(readTool, { file_path: "paper.pdf" }, cwd);
  assert.equal(out.isError, undefined, out.content);
  assert.deepEqual(sentPdf(out), pdf);
  assert.match(out.content, /^Read PDF paper\.pdf \(3 pages, [\d.]+ (?:bytes|KB)\)\.$/);
  assert.deepEqual(out.blocks?.map((b) => b.type), ["document", "text"]);
});

test("Read's pages picks pages of a PDF: the document sent holds only those, with what they inherit", async (t) => {
  const cwd = await tempWorkspace(t);
  for (const [name, pdf] of [
    ["flat.pdf", testPdf(12)],
    ["nested.pdf", testPdf(12, { groupsOf: 5 })],
    ["compressed.pdf", testPdf(12, { groupsOf: 4, compressed: true })],
  ] as const) {
    await write(cwd, name, pdf);
    const one = await callTool(readTool, { file_path: name, pages: "7" }, cwd);
    assert.equal(one.isError, undefined, `${name}: ${one.content}`);
    assert.deepEqual(pageLabels(sentPdf(one)), ["Page 7"], name);
    assert.match(one.content, new RegExp(`^Read page 7 of PDF ${name.replace(".", "\\.")} \\(12 pages\\)`));

    const range = await callTool(readTool, { file_path: name, pages: "3-6" }, cwd);
    const sent = sentPdf(range);
    assert.deepEqual(pageLabels(sent), ["Page 3", "Page 4", "Page 5", "Page 6"], name);
    // The pages carry what they inherited from the tree they left.
    const page = openPdf(sent).pages[0];
    assert.ok(page.dict.entries.has("MediaBox") && page.dict.entries.has("Resources"), name);
    // An update appended to the file: what was there stays as it was.
    assert.deepEqual(sent.subarray(0, pdf.length), pdf);
    assert.match(range.content, /^Read pages 3-6 of PDF/);

    const toEnd = await callTool(readTool, { file_path: name, pages: "11-" }, cwd);
    assert.deepEqual(pageLabels(sentPdf(toEnd)), ["Page 11", "Page 12"], name);
  }
});

test("Read refuses a PDF of more than 10 pages without pages, and pages it cannot give", async (t) => {
  const cwd = await tempWorkspace(t);
  await write(cwd, "long.pdf", testPdf(25));
  const whole = await callTool(readTool, { file_path: "long.pdf" }, cwd);
  assert.equal(whole.isError, true);
  assert.match(whole.content, /long\.pdf has 25 pages; Read gives at most 10 pages of a PDF at once\. Call Read again with pages, e.g\. pages: "1-10" \(at most 20 pages a call\)/);

  const cases: [string, RegExp][] = [
    ["1-21", /pages "1-21" is 21 pages; Read takes at most 20 pages of a PDF at a time/],
    ["26", /pages "26" is outside the document, which has 25 pages/],
    ["20-30", /outside the document, which has 25 pages/],
    ["0", /pages count from 1/],
    ["5-3", /the range ends before it starts/],
    ["one", /pages "one" is not a page or a range of pages/],
    ["1,3", /not a page or a range of pages/],
  ];
  for (const [pages, expected] of cases) {
    const out = await callTool(readTool, { file_path: "long.pdf", pages }, cwd);
    assert.equal(out.isError, true, pages);
    assert.match(out.content, expected, pages);
  }
  await write(cwd, "notes.txt", "text\n");
  const notPdf = await callTool(readTool, { file_path: "notes.txt", pages: "1" }, cwd);
  assert.equal(notPdf.isError, true);
  assert.match(notPdf.content, /pages applies to PDF files only; notes\.txt is not one\. Use offset and limit to read part of a text file/);
});

test("Read refuses a PDF too large to send, an encrypted one, and a file that is not a PDF despite its name", async (t) => {
  const cwd = await tempWorkspace(t);
  await write(cwd, "big.pdf", testPdf(2));
  const big = await callWithState(readTool, { file_path: "big.pdf" }, cwd, createToolState({ limits: { maxPdfBytes: 100 } }));
  assert.equal(big.isError, true);
  assert.match(big.content, /^big\.pdf is [\d.]+ (?:bytes|KB); Read sends PDFs of at most 100 bytes to the model\..*pdftotext/);

  for (const compressed of [false, true]) {
    await write(cwd, "locked.pdf", testPdf(2, { encrypted: true, compressed }));
    const locked = await callTool(readTool, { file_path: "locked.pdf" }, cwd);
    assert.equal(locked.isError, true);
    assert.match(locked.content, /^locked\.pdf cannot be read as a PDF: it is encrypted \(password-protected\)\. /);
  }

  await write(cwd, "fake.pdf", "<html>not a pdf</html>\n");
  const fake = await callTool(readTool, { file_path: "fake.pdf" }, cwd);
  assert.equal(fake.isError, true);
  assert.match(fake.content, /^fake\.pdf cannot be read as a PDF: it does not start with a PDF header \(%PDF-\)/);

  await write(cwd, "cut.pdf", testPdf(3).subarray(0, 200));
  const cut = await callTool(readTool, { file_path: "cut.pdf" }, cwd);
  assert.equal(cut.isError, true);
  assert.match(cut.content, /^cut\.pdf cannot be read as a PDF: /);
});

test("Read finds the pages of a PDF whose cross-reference offsets are wrong", async (t) => {
  const cwd = await tempWorkspace(t);
  // Every offset of the table off by 3: the objects are found where they stand.
  const broken = Buffer.from(testPdf(4).toString("latin1").replace(/^(\d{10}) 00000 n/gm, (_, offset: string) => `${String(Number(offset) + 3).padStart(10, "0")} 00000 n`), "latin1");
  await write(cwd, "broken.pdf", broken);
  const whole = await callTool(readTool, { file_path: "broken.pdf" }, cwd);
  assert.match(whole.content, /\(4 pages/);
  const two = await callTool(readTool, { file_path: "broken.pdf", pages: "2-3" }, cwd);
  assert.deepEqual(pageLabels(sentPdf(two)), ["Page 2", "Page 3"]);
});
