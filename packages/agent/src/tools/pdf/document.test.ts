import assert from "node:assert/strict";
import { test } from "node:test";
import { deflateSync } from "node:zlib";
import { matchesIn, openPdf, type PdfDocument } from "./document.ts";
import { pagesSubset } from "./subset.ts";
import { entry, isRef, PdfError, type PdfDict } from "./syntax.ts";
import { allPages, testPdf } from "./test-support.ts";

test("the scan for objects of a broken file finds each match once, also across the windows it reads", () => {
  const text = "1 0 obj x 22 0 obj y 333 0 obj z 4444 0 obj";
  const expected = [...text.matchAll(/(?<![0-9])(\d+)\s+(\d+)\s+obj\b/g)].map((m) => [m.index, m[1]]);
  for (const window of [3, 5, 7, 11, 1000]) {
    const found = [...matchesIn(Buffer.from(text, "latin1"), /(?<![0-9])(\d+)\s+(\d+)\s+obj\b/g, window)].map((m) => [m.index, m[1]]);
    assert.deepEqual(found, expected, `window ${window}`);
  }
});

test("a compressed stream that inflates past 64 MiB is refused, not inflated into memory", () => {
  // 80 MiB of zeros deflate to about 80 KB: an object stream, holding the page's font, that would
  // fill the memory once the page is written out.
  const bomb = deflateSync(Buffer.alloc(80 * 1024 * 1024));
  const parts: Buffer[] = [Buffer.from("%PDF-1.5\n", "latin1")];
  const offsets: number[] = [];
  const add = (num: number, text: string, data?: Buffer) => {
    offsets[num] = parts.reduce((n, part) => n + part.length, 0);
    parts.push(Buffer.from(`${num} 0 obj\n${text}${data ? "\nstream\n" : ""}`, "latin1"), ...(data ? [data, Buffer.from("\nendstream", "latin1")] : []), Buffer.from("\nendobj\n", "latin1"));
  };
  add(1, "<< /Type /Catalog /Pages 2 0 R >>");
  add(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>");
  add(3, "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> >>");
  add(4, `<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${bomb.length} >>`, bomb);
  const rows = [[0, 0, 65535], ...[1, 2, 3, 4].map((num) => [1, offsets[num], 0]), [2, 4, 0], [1, parts.reduce((n, part) => n + part.length, 0), 0]];
  const table = Buffer.from(rows.flatMap(([type, field, index]) => [type, field >>> 24, (field >>> 16) & 255, (field >>> 8) & 255, field & 255, index >>> 8, index & 255]));
  add(6, `<< /Type /XRef /Size 7 /W [1 4 2] /Root 1 0 R /Length ${table.length} >>`, table);
  parts.push(Buffer.from(`startxref\n${offsets[6]}\n%%EOF\n`, "latin1"));
  const doc = openPdf(Buffer.concat(parts));
  assert.equal(allPages(doc).length, 1);
  assert.throws(() => pagesSubset(doc, { first: 1, last: 1 }), (error: Error) => error instanceof PdfError && /^a compressed stream inflates to more than 64 MiB$/.test(error.message));
});

test("a page of a 50,000-page PDF is found by reading only the page-tree nodes on the way to it", () => {
  for (const compressed of [false, true]) {
    const doc = openPdf(testPdf(50_000, { groupsOf: 100, compressed }));
    assert.equal(doc.pageCount, 50_000);
    const [page] = doc.pages({ first: 40_000, last: 40_000 });
    assert.match(contentOf(doc, page.dict), /\(Page 40000\)/);
    // The catalog, the root, its 500 nodes (for their /Count), and the 100 pages of the one node
    // that holds page 40,000: not the other 49,900 pages.
    assert.ok(doc.objectsRead() < 700, `${doc.objectsRead()} objects read (compressed: ${compressed})`);
  }
});

/** The text of a page's content stream. */
function contentOf(doc: PdfDocument, page: PdfDict): string {
  const contents = entry(page, "Contents");
  assert.ok(isRef(contents));
  return doc.streamData(contents.num)!.toString("latin1");
}

test("a page-tree /Count that disagrees with the node's kids is an error where the walk goes through it; elsewhere pages are numbered by the counts", () => {
  // Twelve pages under nodes of 5, 5 and 2. The second node says 6 (or 4), and the root 13 (or 11),
  // as poppler and qpdf then count the pages: the counts add up everywhere but in that node.
  const source = testPdf(12, { groupsOf: 5 }).toString("latin1");
  const lying = (second: number, root: number) => {
    let n = 0;
    const text = source.replace(/\/Count 5 /g, (found) => (++n === 2 ? `/Count ${second} ` : found)).replace("/Count 12 ", `/Count ${root} `);
    return openPdf(Buffer.from(text, "latin1"));
  };
  const labels = (doc: PdfDocument, first: number, last: number) => doc.pages({ first, last }).map((page) => /\((Page \d+)\)/.exec(contentOf(doc, page.dict))![1]);
  for (const [second, root] of [
    [6, 13],
    [4, 11],
  ]) {
    const doc = lying(second, root);
    assert.equal(doc.pageCount, root);
    assert.deepEqual(labels(doc, 1, 5), ["Page 1", "Page 2", "Page 3", "Page 4", "Page 5"]);
    // Any page of the node that lies: the lie is named, rather than a page given from the wrong place.
    for (const page of [6, 5 + second]) {
      assert.throws(
        () => doc.pages({ first: page, last: page }),
        (error: Error) => error instanceof PdfError && new RegExp(`^its page tree does not add up: page-tree object \\d+ says it holds ${second} pages, but its kids hold 5$`).test(error.message),
      );
    }
    assert.throws(() => doc.pages({ first: 4, last: 7 }), /does not add up/);
    // The last node's pages are where the counts before them put them; each is one page, once.
    assert.deepEqual(labels(doc, root - 1, root), ["Page 11", "Page 12"]);
  }
  // A root whose kids hold another count than its own: no page of it can be placed.
  const root = openPdf(Buffer.from(source.replace("/Count 12 ", "/Count 13 "), "latin1"));
  assert.throws(() => root.pages({ first: 1, last: 1 }), /page-tree object 2 says it holds 13 pages, but its kids hold 12/);
  // A node without a /Count has its pages counted.
  const uncounted = openPdf(Buffer.from(source.replace("/Count 12 ", "          "), "latin1"));
  assert.equal(uncounted.pageCount, 12);
  assert.deepEqual(labels(uncounted, 12, 12), ["Page 12"]);
});
