import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { callTool, tempWorkspace } from "../../testing/fixtures.ts";
import type { ToolOutput } from "../../types.ts";
import { openPdf } from "./document.ts";
import { entry, isRef } from "./syntax.ts";
import { allPages, pdfOf, testPdf } from "./test-support.ts";
import { readTool } from "../read.ts";
import { createToolState } from "../state.ts";
import { callWithState } from "../test-helpers.ts";

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
  return allPages(doc).map((page) => {
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
    const page = allPages(openPdf(sent))[0];
    assert.ok(page.dict.entries.has("MediaBox") && page.dict.entries.has("Resources"), name);
    // A new file of those pages: nothing of the others is sent.
    assert.ok(sent.length < pdf.length, name);
    for (const other of [1, 2, 7, 12]) assert.ok(!sent.includes(`(Page ${other})`), `${name}: page ${other} is sent`);
    assert.match(range.content, /^Read pages 3-6 of PDF/);

    const toEnd = await callTool(readTool, { file_path: name, pages: "11-" }, cwd);
    assert.deepEqual(pageLabels(sentPdf(toEnd)), ["Page 11", "Page 12"], name);
  }
});

test("Read's pages reads a few pages of a PDF too large to send whole, and says when the pages are too large", async (t) => {
  const cwd = await tempWorkspace(t);
  const image = 60_000;
  await write(cwd, "book.pdf", testPdf(14, { imageBytes: image, links: true, outline: true, compressed: true }));
  const state = createToolState({ limits: { maxPdfBytes: 200_000 } });

  const two = await callWithState(readTool, { file_path: "book.pdf", pages: "5-6" }, cwd, state);
  assert.equal(two.isError, undefined, two.content);
  const sent = sentPdf(two);
  assert.deepEqual(pageLabels(sent), ["Page 5", "Page 6"]);
  assert.ok(sent.length > 2 * image && sent.length < 2 * image + 6000, `${sent.length} bytes sent`);
  assert.match(two.content, /^Read pages 5-6 of PDF book\.pdf \(14 pages\)/);

  // Four pages' images are more than may be sent.
  const four = await callWithState(readTool, { file_path: "book.pdf", pages: "3-6" }, cwd, state);
  assert.equal(four.isError, true);
  assert.match(four.content, /^Pages 3-6 of book\.pdf come to 23\d\.\d KB; Read sends PDFs of at most 195\.3 KB to the model\. Read fewer pages at a time, e\.g\. pages: "3-5"\.$/);
  const one = await callWithState(readTool, { file_path: "book.pdf", pages: "2" }, cwd, createToolState({ limits: { maxPdfBytes: 50_000 } }));
  assert.equal(one.isError, true);
  assert.match(one.content, /^Page 2 of book\.pdf comes to 5\d\.\d KB; Read sends PDFs of at most 48\.8 KB to the model\. Extract its text through Bash instead, for example: pdftotext -f 2 -l 2 "book\.pdf" -/);

  // Without pages: the file is too large, and pages is the way to read it.
  const whole = await callWithState(readTool, { file_path: "book.pdf" }, cwd, state);
  assert.equal(whole.isError, true);
  assert.match(whole.content, /^book\.pdf is 8\d\d\.\d KB; Read sends PDFs of at most 195\.3 KB to the model\. It has 14 pages: call Read again with pages, e\.g\. pages: "1-3", to read a few of them\. Or extract its text through Bash: pdftotext/);

  // Past the larger bound Read does not open the file at all.
  const huge = await callWithState(readTool, { file_path: "book.pdf", pages: "1" }, cwd, createToolState({ limits: { maxPdfBytes: 200_000, maxPdfFileBytes: 500_000 } }));
  assert.equal(huge.isError, true);
  assert.match(huge.content, /^book\.pdf is 8\d\d\.\d KB; Read sends PDFs of at most 195\.3 KB to the model, and takes pages out of PDFs of at most 488\.3 KB\. Extract its text through Bash instead, for example: pdftotext -f 1 -l 20 "book\.pdf" - \| head -500, or copy out the pages you need \(qpdf "book\.pdf" --pages \. 1-20 -- part\.pdf\) and Read that\.$/);
  const hugeWhole = await callWithState(readTool, { file_path: "book.pdf" }, cwd, createToolState({ limits: { maxPdfBytes: 200_000, maxPdfFileBytes: 500_000 } }));
  assert.equal(hugeWhole.content, huge.content);
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

  // A large one is scanned a window at a time; the objects across windows are found all the same.
  const large = Buffer.from(testPdf(10, { imageBytes: 1024 * 1024 }).toString("latin1").replace(/^(\d{10}) 00000 n/gm, (_, offset: string) => `${String(Number(offset) + 3).padStart(10, "0")} 00000 n`), "latin1");
  await write(cwd, "large.pdf", large);
  const end = await callTool(readTool, { file_path: "large.pdf", pages: "8-10" }, cwd);
  assert.deepEqual(pageLabels(sentPdf(end)), ["Page 8", "Page 9", "Page 10"]);
});

test("pages that cannot be written as a PDF of their own, of a file too large to send, are named, and pdftotext is offered for them", async (t) => {
  const cwd = await tempWorkspace(t);
  // Page 2's content stream has a /Length that refers on through forty more streams.
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>", "<< /Type /Page /Parent 2 0 R /Contents 5 0 R >>", "<< /Type /Page /Parent 2 0 R /Contents 6 0 R >>", "<< /Length 5 >>\nstream\nBT ET\nendstream"];
  for (let num = 6; num < 46; num++) objects.push(`<< /Length ${num + 1} 0 R >>\nstream\nBT ET\nendstream`);
  objects.push("5");
  await write(cwd, "chain.pdf", pdfOf(objects));
  const state = createToolState({ limits: { maxPdfBytes: 1000 } });
  const out = await callWithState(readTool, { file_path: "chain.pdf", pages: "2" }, cwd, state);
  assert.equal(out.isError, true);
  assert.match(out.content, /^Page 2 of chain\.pdf cannot be written as a PDF of its own: its objects' stream lengths refer to one another more than 32 deep \(at object \d+\)\. Extract its text through Bash instead, for example: pdftotext -f 2 -l 2 "chain\.pdf" -$/);
  const both = await callWithState(readTool, { file_path: "chain.pdf", pages: "1-2" }, cwd, state);
  assert.match(both.content, /^Pages 1-2 of chain\.pdf cannot be written as a PDF of their own: .*pdftotext -f 1 -l 2 "chain\.pdf" -$/);
});

test("Read names a page-tree /Count that does not add up on the way to the pages asked for", async (t) => {
  const cwd = await tempWorkspace(t);
  // The second of the nodes of 5, 5 and 2 pages says it holds 6, and the root 13.
  let n = 0;
  const text = testPdf(12, { groupsOf: 5 }).toString("latin1").replace(/\/Count 5 /g, (found) => (++n === 2 ? "/Count 6 " : found)).replace("/Count 12 ", "/Count 13 ");
  await write(cwd, "lie.pdf", Buffer.from(text, "latin1"));
  const out = await callTool(readTool, { file_path: "lie.pdf", pages: "7" }, cwd);
  assert.equal(out.isError, true);
  assert.match(out.content, /^Page 7 of lie\.pdf cannot be written as a PDF of its own: its page tree does not add up: page-tree object \d+ says it holds 6 pages, but its kids hold 5\. Extract its text through Bash instead, for example: pdftotext -f 7 -l 7 "lie\.pdf" -$/);
  assert.deepEqual(pageLabels(sentPdf(await callTool(readTool, { file_path: "lie.pdf", pages: "2-3" }, cwd))), ["Page 2", "Page 3"]);
});

test("Read refuses to send whole a PDF whose page tree is broken, though its /Count is small", async (t) => {
  const cwd = await tempWorkspace(t);
  const source = testPdf(3).toString("latin1");
  // The root lists itself among its kids; or says 3 pages while its kids hold 4.
  await write(cwd, "loop.pdf", Buffer.from(source.replace(/\/Kids \[(\d+) 0 R/, "/Kids [2 0 R"), "latin1"));
  const loop = await callTool(readTool, { file_path: "loop.pdf" }, cwd);
  assert.equal(loop.isError, true);
  assert.match(loop.content, /^loop\.pdf cannot be read as a PDF: its page tree loops back on itself\. Extract its text through Bash/);
  await write(cwd, "more.pdf", Buffer.from(source.replace(/\/Kids \[(\d+) 0 R/, "/Kids [$1 0 R $1 0 R"), "latin1"));
  const more = await callTool(readTool, { file_path: "more.pdf" }, cwd);
  assert.equal(more.isError, true);
  assert.match(more.content, /^more\.pdf cannot be read as a PDF: its page tree does not add up: page-tree object 2 says it holds 3 pages, but its kids hold 4\. /);
});
