import assert from "node:assert/strict";
import { test } from "node:test";
import { deflateSync } from "node:zlib";
import { matchesIn, openPdf } from "./pdf-document.ts";
import { pagesSubset } from "./pdf-subset.ts";
import { PdfError } from "./pdf-syntax.ts";

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
  assert.equal(doc.pages.length, 1);
  assert.throws(() => pagesSubset(doc, { first: 1, last: 1 }), (error: Error) => error instanceof PdfError && /^a compressed stream inflates to more than 64 MiB$/.test(error.message));
});
