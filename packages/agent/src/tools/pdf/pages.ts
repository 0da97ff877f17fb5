// Read's `pages` of a PDF: the range asked for, and, where the new file of just those pages
// (subset.ts) cannot be written, a PDF whose pages they are, picked by an incremental update
// (ISO 32000 §7.5.6): appended to the file, a new page tree lists just them, and the catalog points
// to it. Nothing before is rewritten, so every object stays as the file has it; the other pages
// remain in the bytes, but are no longer pages of the document.
import type { PdfDocument, PdfPage } from "./document.ts";
import { isDict } from "./syntax.ts";

export type PageRange = { first: number; last: number };

/** The range `pages` names ("3", "1-5", "10-" for 10 to the end) in a document of `count` pages, or
 * what is wrong with it. */
export function parsePageRange(pages: string, count: number, maxPages: number): PageRange | { error: string } {
  const match = /^\s*(\d+)\s*(?:(-)\s*(\d*)\s*)?$/.exec(pages);
  const example = `Give one page ("3") or a range ("1-5", or "10-" for page 10 to the end), counting from 1`;
  if (!match) return { error: `pages "${pages}" is not a page or a range of pages. ${example}.` };
  const first = Number(match[1]);
  const last = match[2] ? (match[3] ? Number(match[3]) : count) : first;
  if (first < 1) return { error: `pages "${pages}": pages count from 1. ${example}.` };
  if (last < first) return { error: `pages "${pages}": the range ends before it starts.` };
  if (first > count || last > count) return { error: `pages "${pages}" is outside the document, which has ${count} page${count === 1 ? "" : "s"}.` };
  if (last - first + 1 > maxPages) return { error: `pages "${pages}" is ${last - first + 1} pages; Read takes at most ${maxPages} pages of a PDF at a time. Read a smaller range, e.g. "${first}-${first + maxPages - 1}".` };
  return { first, last };
}

/** The document's bytes with an update appended that makes `range` its only pages. */
export function withPagesOnly(doc: PdfDocument, range: PageRange): Buffer {
  const selected = doc.pages(range);
  const treeNum = doc.size;
  const objects: { num: number; gen: number; body: string }[] = [];
  objects.push({ num: treeNum, gen: 0, body: `<< /Type /Pages /Kids [${selected.map((p) => `${p.ref.num} ${p.ref.gen} R`).join(" ")}] /Count ${selected.length} >>` });
  for (const page of selected) objects.push({ num: page.ref.num, gen: page.ref.gen, body: pageBody(page, treeNum) });
  const catalog = doc.resolve(doc.root);
  const kept = isDict(catalog) ? [...catalog.entries].filter(([key]) => key !== "Pages") : [];
  objects.push({ num: doc.root.num, gen: doc.root.gen, body: `<< ${kept.map(([key, { raw }]) => `/${key} ${raw}`).join(" ")} /Pages ${treeNum} 0 R >>` });

  const head = doc.bytes[doc.bytes.length - 1] === 0x0a ? "" : "\n";
  let update = head;
  const offsets = new Map<number, { offset: number; gen: number }>();
  for (const object of objects) {
    offsets.set(object.num, { offset: doc.bytes.length + Buffer.byteLength(update, "latin1"), gen: object.gen });
    update += `${object.num} ${object.gen} obj\n${object.body}\nendobj\n`;
  }
  const xrefOffset = doc.bytes.length + Buffer.byteLength(update, "latin1");
  const carried = ["Info", "ID"].flatMap((key) => {
    const found = doc.trailer.entries.get(key);
    return found ? [`/${key} ${found.raw}`] : [];
  });
  const prev = doc.startxref >= 0 ? [`/Prev ${doc.startxref}`] : [];
  if (doc.xrefIsStream) {
    const xrefNum = treeNum + 1;
    offsets.set(xrefNum, { offset: xrefOffset, gen: 0 });
    const rows = [...offsets].sort(([a], [b]) => a - b);
    const data = Buffer.concat(rows.map(([, { offset, gen }]) => Buffer.from([1, ...bigEndian(offset, 4), ...bigEndian(gen, 2)])));
    const index = rows.map(([num]) => `${num} 1`).join(" ");
    const dict = `<< /Type /XRef /Size ${xrefNum + 1} /W [1 4 2] /Index [${index}] /Root ${doc.root.num} ${doc.root.gen} R ${[...carried, ...prev].join(" ")} /Length ${data.length} >>`;
    return Buffer.concat([doc.bytes, Buffer.from(`${update}${xrefNum} 0 obj\n${dict}\nstream\n`, "latin1"), data, Buffer.from(`\nendstream\nendobj\nstartxref\n${xrefOffset}\n%%EOF\n`, "latin1")]);
  }
  // A file whose cross-reference data was broken gets a whole new table (of the objects found
  // where they stand), not an update of the broken one.
  const listed = doc.startxref >= 0 ? offsets : new Map([...doc.objectOffsets(), ...offsets]);
  let table = "xref\n0 1\n0000000000 65535 f \n";
  for (const [num, { offset, gen }] of [...listed].sort(([a], [b]) => a - b)) table += `${num} 1\n${String(offset).padStart(10, "0")} ${String(gen).padStart(5, "0")} n \n`;
  const trailer = `trailer\n<< /Size ${treeNum + 1} /Root ${doc.root.num} ${doc.root.gen} R ${[...carried, ...prev].join(" ")} >>\n`;
  return Buffer.concat([doc.bytes, Buffer.from(`${update}${table}${trailer}startxref\n${xrefOffset}\n%%EOF\n`, "latin1")]);
}

/** The page's dictionary with what it inherited written into it, and the new tree as its parent. */
function pageBody(page: PdfPage, parent: number): string {
  const parts: string[] = [];
  for (const [key, { raw }] of page.dict.entries) if (key !== "Parent") parts.push(`/${key} ${raw}`);
  for (const [key, { raw }] of page.inherited) if (!page.dict.entries.has(key)) parts.push(`/${key} ${raw}`);
  parts.push(`/Parent ${parent} 0 R`);
  return `<< ${parts.join(" ")} >>`;
}

function bigEndian(value: number, width: number): number[] {
  return Array.from({ length: width }, (_, i) => Math.floor(value / 256 ** (width - 1 - i)) & 0xff);
}
