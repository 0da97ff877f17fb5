import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { openPdf, type PdfDocument } from "./document.ts";
import { pagesSubset } from "./subset.ts";
import { entry, isDict, isRef, PdfError, type PdfDict, type PdfValue } from "./syntax.ts";
import { allPages, pdfOf, testPdf } from "./test-support.ts";

const IMAGE = 40_000;

/** The subset's text, for looking for what must not be in it. */
const textOf = (bytes: Buffer) => bytes.toString("latin1");

/** The "Page N" label a page's content stream draws. */
function labelOf(doc: PdfDocument, page: PdfDict): string {
  const contents = entry(page, "Contents");
  assert.ok(isRef(contents));
  const at = doc.objectOffsets().get(contents.num)!.offset;
  return /\((Page \d+)\)/.exec(doc.bytes.toString("latin1", at, at + 300))![1];
}

function dictOf(doc: PdfDocument, value: PdfValue | undefined): PdfDict {
  const found = doc.resolve(value);
  assert.ok(isDict(found), `not a dictionary: ${JSON.stringify(value)}`);
  return found;
}

const variants = [
  ["flat", testPdf(12, { imageBytes: IMAGE, links: true, outline: true })],
  ["nested", testPdf(12, { groupsOf: 5, imageBytes: IMAGE, links: true, outline: true })],
  ["compressed", testPdf(12, { groupsOf: 4, compressed: true, imageBytes: IMAGE, links: true, outline: true })],
] as const;

test("a subset of pages is a new PDF of just those pages, about the size of what they hold", () => {
  for (const [name, pdf] of variants) {
    const subset = pagesSubset(openPdf(pdf), { first: 3, last: 4 });
    const bytes = subset.bytes();
    assert.equal(subset.size, bytes.length, name);
    const doc = openPdf(bytes);
    assert.deepEqual(allPages(doc).map((page) => labelOf(doc, page.dict)), ["Page 3", "Page 4"], name);
    // Two images and a few small objects: nothing of the other ten pages.
    assert.ok(bytes.length > 2 * IMAGE && bytes.length < 2 * IMAGE + 6000, `${name}: ${bytes.length} bytes`);
    assert.ok(pdf.length > 12 * IMAGE);
    for (const other of [1, 2, 5, 12]) assert.ok(!textOf(bytes).includes(`(Page ${other})`), `${name}: page ${other} is in it`);
    // Written afresh: a cross-reference table, no object streams, no update of the old file.
    assert.ok(/^%PDF-1\.[45]\n/.test(textOf(bytes)), `${name}: no header`);
    assert.ok(!/\/ObjStm|\/Prev/.test(textOf(bytes)), `${name}: an object stream or update is in it`);
    assert.equal(doc.startxref, textOf(bytes).lastIndexOf("\nxref\n") + 1, name);
    // Every page has what it inherited, and the new tree as its parent.
    for (const page of allPages(doc)) {
      assert.ok(page.dict.entries.has("MediaBox") && page.dict.entries.has("Resources"), name);
      assert.deepEqual(entry(page.dict, "Parent"), entry(dictOf(doc, doc.root), "Pages"));
    }
  }
});

test("a subset keeps annotations and links among its pages and drops what leads to the others", () => {
  for (const [name, pdf] of variants) {
    const doc = openPdf(pagesSubset(openPdf(pdf), { first: 3, last: 4 }).bytes());
    const [three, four] = allPages(doc);
    const annotations = (page: PdfDict) => (doc.resolve(entry(page, "Annots")) as PdfValue[]).map((a) => dictOf(doc, a));
    const kinds = (page: PdfDict) => annotations(page).map((a) => (entry(a, "Subtype") as { name: string }).name);
    // Page 3's link to page 4 stays, and points to the subset's page; page 4's link to page 5 and
    // both GoTo actions to page 1 go.
    assert.deepEqual(kinds(three.dict), ["Link", "Text", "Widget"], name);
    assert.deepEqual(kinds(four.dict), ["Text", "Widget"], name);
    const link = annotations(three.dict)[0];
    assert.deepEqual((doc.resolve(entry(link, "Dest")) as PdfValue[])[0], four.ref, name);
    // A note's /P is its own page, renumbered.
    assert.deepEqual(entry(annotations(four.dict)[0], "P"), four.ref, name);
    // The catalog keeps the form, with the field's widgets on these pages only; no outline.
    const catalog = dictOf(doc, doc.root);
    assert.deepEqual([...catalog.entries.keys()].sort(), ["AcroForm", "Pages", "Type"], name);
    const fields = doc.resolve(entry(dictOf(doc, entry(catalog, "AcroForm")), "Fields")) as PdfValue[];
    assert.equal(fields.length, 1);
    const kids = doc.resolve(entry(dictOf(doc, fields[0]), "Kids")) as PdfValue[];
    const widgets = [three, four].map((page) => (doc.resolve(entry(page.dict, "Annots")) as PdfValue[]).at(-1));
    assert.deepEqual(kids, widgets, name);
    assert.ok(!/Chapter|\/Outlines/.test(textOf(doc.bytes)), `${name}: the outline is in it`);
    // No reference leads out of the file.
    const size = doc.objectOffsets();
    for (const found of textOf(doc.bytes).matchAll(/(\d+) 0 R\b/g)) assert.ok(size.has(Number(found[1])), `${name}: ${found[0]} dangles`);
  }
});

test("a subset writes strings as the file has them, and names and numbers as PDF reads them", () => {
  // Same-length replacements keep the cross-reference offsets right.
  const source = testPdf(2, { links: true }).toString("latin1").replace("(Note 1)", "(a\\)1 R)").replace("/Subtype /Text /Rect [0 20 10 30]", "/Subtype/T#65xt/Rect [0 2 -.5 30]");
  const doc = openPdf(pagesSubset(openPdf(Buffer.from(source, "latin1")), { first: 1, last: 1 }).bytes());
  const text = textOf(doc.bytes);
  assert.ok(text.includes("/Subtype /Text /Rect [0 2 -0.5 30] /P 3 0 R /Contents (a\\)1 R)"), text.slice(0, 2000));
  // The shared font is written once.
  assert.equal(text.match(/\/BaseFont \/Helvetica/g)?.length, 1);
});

test("qpdf and pdfinfo find a subset sound", (t) => {
  const tools = ["qpdf", "pdfinfo"].filter((tool) => spawnSync(tool, ["--version"]).error === undefined);
  if (tools.length === 0) {
    t.skip("neither qpdf nor pdfinfo is installed");
    return;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pdf-subset-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [name, pdf] of variants) {
    const file = path.join(dir, `${name}.pdf`);
    fs.writeFileSync(file, pagesSubset(openPdf(pdf), { first: 3, last: 5 }).bytes());
    if (tools.includes("qpdf")) {
      const check = spawnSync("qpdf", ["--check", file], { encoding: "utf8" });
      assert.equal(check.status, 0, `${name}: ${check.stdout}${check.stderr}`);
      assert.doesNotMatch(check.stdout + check.stderr, /WARNING/i, name);
    }
    if (tools.includes("pdfinfo")) assert.match(execFileSync("pdfinfo", [file], { encoding: "utf8" }), /^Pages:\s+3$/m, name);
  }
});

test("a PDF of 150,000 objects opens, and writing a page of it reads only what that page reaches", () => {
  const pdf = testPdf(25_000, { groupsOf: 100, links: true });
  const doc = openPdf(pdf);
  assert.equal(doc.pageCount, 25_000);
  const subset = openPdf(pagesSubset(doc, { first: 12_345, last: 12_345 }).bytes());
  assert.deepEqual(allPages(subset).map((page) => labelOf(subset, page.dict)), ["Page 12345"]);
  // The page tree's nodes on the way, the form's field with its widget on every page (each judged by
  // its /P without reading that page), and what page 12,345 reaches: not the other pages' content.
  assert.ok(doc.objectsRead() < 30_000, `${doc.objectsRead()} of 150,000 objects read to write one page`);
});

test("a page the page tree lists twice is a page each time, in the file and in a subset of it", (t) => {
  // Page 1's object stands again in place of page 3, as some writers repeat a blank page.
  const source = testPdf(3, { links: true }).toString("latin1");
  const twice = source.replace(/\/Kids \[(\d+) 0 R (\d+) 0 R \d+ 0 R\] \/Count 3/, "/Kids [$1 0 R $2 0 R $1 0 R] /Count 3");
  assert.notEqual(twice, source);
  const doc = openPdf(Buffer.from(twice, "latin1"));
  assert.deepEqual(allPages(doc).map((page) => labelOf(doc, page.dict)), ["Page 1", "Page 2", "Page 1"]);
  const bytes = pagesSubset(doc, { first: 1, last: 3 }).bytes();
  const subset = openPdf(bytes);
  assert.deepEqual(allPages(subset).map((page) => labelOf(subset, page.dict)), ["Page 1", "Page 2", "Page 1"]);
  // Each place in the tree has a page object of its own.
  assert.equal(new Set(allPages(subset).map((page) => page.ref.num)).size, 3);
  if (spawnSync("qpdf", ["--version"]).error === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pdf-subset-"));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, "twice.pdf"), bytes);
    const check = spawnSync("qpdf", ["--check", path.join(dir, "twice.pdf")], { encoding: "utf8" });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.doesNotMatch(check.stdout + check.stderr, /WARNING/i);
  }
  // A node that is its own ancestor is still a loop.
  const loop = source.replace(/\/Kids \[(\d+) 0 R/, "/Kids [2 0 R");
  assert.throws(() => allPages(openPdf(Buffer.from(loop, "latin1"))), /loops back on itself/);
});

test("a chain of streams whose each /Length is the next one is refused as a PDF error, not a stack overflow", () => {
  // 100,000 objects, each a stream whose /Length refers to the next: reading one reads them all.
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Page /MediaBox [0 0 1 1] /Contents 4 0 R >>"];
  for (let num = 4; num < 100_004; num++) objects.push(`<< /Length ${num + 1} 0 R >>\nstream\nxx\nendstream`);
  objects.push("2");
  const doc = openPdf(pdfOf(objects));
  assert.throws(() => pagesSubset(doc, { first: 1, last: 1 }), (error: Error) => error instanceof PdfError && /refer to one another more than \d+ deep/.test(error.message));
});

test("a subset keeps the named destinations on its pages, and drops the others and the links that go to them", (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pdf-subset-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const named of ["Dests", "Names"] as const) {
    for (const groupsOf of [undefined, 5]) {
      const name = `${named}, groups of ${groupsOf ?? "all"}`;
      const bytes = pagesSubset(openPdf(testPdf(12, { links: true, outline: true, named, groupsOf })), { first: 3, last: 4 }).bytes();
      const doc = openPdf(bytes);
      const [three, four] = allPages(doc);
      const catalog = dictOf(doc, doc.root);
      // p3 and p4, on the new page objects; no other page's name.
      let dests: [string, PdfValue][];
      if (named === "Dests") {
        dests = [...dictOf(doc, entry(catalog, "Dests")).entries].map(([key, { value }]) => [key, value]);
      } else {
        const tree = dictOf(doc, entry(dictOf(doc, entry(catalog, "Names")), "Dests"));
        const pairs = doc.resolve(entry(tree, "Names")) as PdfValue[];
        dests = [];
        for (let i = 0; i < pairs.length; i += 2) dests.push([(pairs[i] as { raw: string }).raw, doc.resolve(entry(dictOf(doc, pairs[i + 1]), "D"))!]);
      }
      const p = (n: number) => (named === "Dests" ? `p${n}` : `<${Buffer.from(`p${n}`).toString("hex")}>`);
      assert.deepEqual(
        dests.map(([key, dest]) => [key, (doc.resolve(dest) as PdfValue[])[0]]),
        [
          [p(3), three.ref],
          [p(4), four.ref],
        ],
        name,
      );
      // Page 3's link to p4 stays; page 4's link to p5 and both GoTo actions to p1 go.
      const kinds = (page: PdfDict) => (doc.resolve(entry(page, "Annots")) as PdfValue[]).map((a) => (entry(dictOf(doc, a), "Subtype") as { name: string }).name);
      assert.deepEqual(kinds(three.dict), ["Link", "Text", "Widget"], name);
      assert.deepEqual(kinds(four.dict), ["Text", "Widget"], name);
      const file = path.join(dir, "named.pdf");
      fs.writeFileSync(file, bytes);
      if (spawnSync("qpdf", ["--version"]).error === undefined) {
        const check = spawnSync("qpdf", ["--check", file], { encoding: "utf8" });
        assert.equal(check.status, 0, `${name}: ${check.stdout}${check.stderr}`);
        assert.doesNotMatch(check.stdout + check.stderr, /WARNING/i, name);
      }
      if (spawnSync("pdfinfo", ["-v"]).error === undefined) {
        assert.match(execFileSync("pdfinfo", [file], { encoding: "utf8" }), /^Pages:\s+2$/m, name);
        // poppler finds both names, on pages 1 and 2 of the subset.
        const found = execFileSync("pdfinfo", ["-dests", file], { encoding: "utf8" });
        assert.match(found, /^\s*1 \[ Fit\s*\]\s+"p3"$/m, `${name}: ${found}`);
        assert.match(found, /^\s*2 \[ Fit\s*\]\s+"p4"$/m, `${name}: ${found}`);
      }
    }
  }
});

test("a name tree that loops back on itself is read once through, and a GoToR's name is left to the other file", () => {
  const doc = openPdf(
    pdfOf([
      "<< /Type /Catalog /Pages 2 0 R /Names << /Dests 6 0 R >> >>",
      "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 612 792] >>",
      "<< /Type /Page /Parent 2 0 R /Annots [5 0 R 7 0 R 9 0 R] >>",
      "<< /Type /Page /Parent 2 0 R >>",
      "<< /Type /Annot /Subtype /Link /Rect [0 0 1 1] /A << /S /GoToR /F (other.pdf) /D (elsewhere) >> >>",
      "<< /Kids [6 0 R 8 0 R] >>",
      "<< /Type /Annot /Subtype /Link /Rect [0 1 1 2] /Dest (one) >>",
      "<< /Names [(one) [3 0 R /Fit] (two) [4 0 R /Fit]] >>",
      "<< /Type /Annot /Subtype /Link /Rect [0 2 1 3] /A << /S /GoTo /D (two) >> >>",
    ]),
  );
  const subset = openPdf(pagesSubset(doc, { first: 1, last: 1 }).bytes());
  const [page] = allPages(subset);
  const links = (subset.resolve(entry(page.dict, "Annots")) as PdfValue[]).map((a) => dictOf(subset, a));
  assert.deepEqual(
    links.map((link) => entry(link, "Rect")),
    [
      [0, 0, 1, 1],
      [0, 1, 1, 2],
    ],
  );
  const tree = dictOf(subset, entry(dictOf(subset, entry(dictOf(subset, subset.root), "Names")), "Dests"));
  assert.deepEqual(subset.resolve(entry(tree, "Names")), [{ kind: "string", raw: "(one)" }, [page.ref, { kind: "name", name: "Fit" }]]);
});
