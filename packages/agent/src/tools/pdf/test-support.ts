// Small PDFs written by hand in tests: each page draws the words "Page N", so that a test can tell
// which pages a PDF holds by its page contents.
import { deflateSync } from "node:zlib";
import type { PdfDocument, PdfPage } from "./document.ts";
import { fileWriter } from "./subset.ts";

export type TestPdfOptions = {
  /** Pages grouped under intermediate page-tree nodes of this many pages each, which carry the
   * pages' MediaBox and Resources for them to inherit. */
  groupsOf?: number;
  /** A cross-reference stream, with the page tree in a compressed object stream (PDF 1.5). */
  compressed?: boolean;
  /** An /Encrypt entry in the trailer, as a password-protected PDF has. */
  encrypted?: boolean;
  /** An image of this many bytes drawn on each page (its own, so that a page's size is known). */
  imageBytes?: number;
  /** On each page: a link to the next page (the last one's to page 1), a GoTo action to page 1, a
   * note annotation, and a form field's widget; the field has a widget on every page. */
  links?: boolean;
  /** An outline (bookmarks) with an item per page. */
  outline?: boolean;
  /** Links, actions and outline items go to named destinations, one a page: "p1", "p2" … as
   * names in the catalog's /Dests ("Dests"), or as strings in its /Names /Dests name tree
   * ("Names": two leaves, the keys written in hex, each destination a dictionary with a /D). */
  named?: "Dests" | "Names";
};

/** Every page of `doc`, in order. */
export const allPages = (doc: PdfDocument): PdfPage[] => (doc.pageCount === 0 ? [] : doc.pages({ first: 1, last: doc.pageCount }));

/** A valid PDF of `pageCount` pages. */
export function testPdf(pageCount: number, options: TestPdfOptions = {}): Buffer {
  // Objects: 1 catalog, 2 page-tree root, 3 font, then per group a node, then per page a page and its contents.
  const objects = new Map<number, string>();
  const catalog = ["/Type /Catalog /Pages 2 0 R"];
  objects.set(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  let next = 4;
  const pageNumbers: number[] = [];
  const contents = new Map<number, string | Buffer>();
  for (let i = 1; i <= pageCount; i++) {
    const page = next++;
    const content = next++;
    pageNumbers.push(page);
    contents.set(content, `${options.imageBytes ? "q 100 0 0 100 72 500 cm /Im1 Do Q " : ""}BT /F1 24 Tf 72 720 Td (Page ${i}) Tj ET`);
  }
  const pageExtras = new Map<number, string>();
  /** Where page `i` (from 0) is, as a link's /Dest or an action's /D gives it. */
  const destOf = (i: number, view = "/Fit") => (options.named === "Dests" ? `/p${i + 1}` : options.named === "Names" ? `(p${i + 1})` : `[${pageNumbers[i]} 0 R ${view}]`);
  if (options.imageBytes) {
    for (const [i, page] of pageNumbers.entries()) {
      const image = next++;
      // Uncompressed bytes of one shade per page: the size in the file is the size asked for.
      contents.set(image, Buffer.alloc(options.imageBytes, i % 256));
      pageExtras.set(page, `/Resources << /Font << /F1 3 0 R >> /XObject << /Im1 ${image} 0 R >> >>`);
    }
  }
  if (options.links) {
    const field = next++;
    const widgets: number[] = [];
    for (const [i, page] of pageNumbers.entries()) {
      const [link, action, note, widget] = [next++, next++, next++, next++];
            objects.set(link, `<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] /P ${page} 0 R /Dest ${destOf((i + 1) % pageNumbers.length)} >>`);
      objects.set(action, `<< /Type /Annot /Subtype /Link /Rect [0 10 10 20] /A << /S /GoTo /D ${destOf(0, "/XYZ 0 792 0")} >> >>`);
      objects.set(note, `<< /Type /Annot /Subtype /Text /Rect [0 20 10 30] /P ${page} 0 R /Contents (Note ${i + 1}) >>`);
      objects.set(widget, `<< /Type /Annot /Subtype /Widget /Rect [0 30 10 40] /P ${page} 0 R /Parent ${field} 0 R >>`);
      widgets.push(widget);
      pageExtras.set(page, `${pageExtras.get(page) ?? ""} /Annots [${link} 0 R ${action} 0 R ${note} 0 R ${widget} 0 R]`);
    }
    objects.set(field, `<< /FT /Tx /T (name) /Kids [${widgets.map((n) => `${n} 0 R`).join(" ")}] >>`);
    catalog.push(`/AcroForm << /Fields [${field} 0 R] >>`);
  }
  if (options.outline) {
    const root = next++;
    const items = pageNumbers.map(() => next++);
    objects.set(root, `<< /Type /Outlines /First ${items[0]} 0 R /Last ${items.at(-1)} 0 R /Count ${items.length} >>`);
    items.forEach((item, i) => {
      const links = `${i > 0 ? `/Prev ${items[i - 1]} 0 R ` : ""}${i + 1 < items.length ? `/Next ${items[i + 1]} 0 R ` : ""}`;
      objects.set(item, `<< /Title (Chapter ${i + 1}) /Parent ${root} 0 R ${links}/Dest ${destOf(i)} >>`);
    });
    catalog.push(`/Outlines ${root} 0 R /PageMode /UseOutlines`);
  }
  if (options.named === "Dests") catalog.push(`/Dests << ${pageNumbers.map((page, i) => `/p${i + 1} [${page} 0 R /Fit]`).join(" ")} >>`);
  if (options.named === "Names") {
    const keys = pageNumbers.map((page, i) => [`p${i + 1}`, page] as const).sort(([a], [b]) => (a < b ? -1 : 1));
    const hex = (key: string) => `<${Buffer.from(key, "latin1").toString("hex")}>`;
    const halves = [keys.slice(0, keys.length >> 1), keys.slice(keys.length >> 1)].filter((half) => half.length > 0).map((half) => {
      const leaf = next++;
      objects.set(leaf, `<< /Limits [${hex(half[0][0])} ${hex(half.at(-1)![0])}] /Names [${half.map(([key, page]) => `${hex(key)} << /D [${page} 0 R /Fit] >>`).join(" ")}] >>`);
      return leaf;
    });
    catalog.push(`/Names << /Dests << /Kids [${halves.map((n) => `${n} 0 R`).join(" ")}] >> >>`);
  }
  objects.set(1, `<< ${catalog.join(" ")} >>`);
  const inherited = "/MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>";
  const parentOf = new Map<number, number>();
  if (options.groupsOf) {
    const groups: number[] = [];
    for (let i = 0; i < pageNumbers.length; i += options.groupsOf) {
      const group = next++;
      const members = pageNumbers.slice(i, i + options.groupsOf);
      for (const page of members) parentOf.set(page, group);
      objects.set(group, `<< /Type /Pages /Parent 2 0 R /Kids [${members.map((n) => `${n} 0 R`).join(" ")}] /Count ${members.length} ${inherited} >>`);
      groups.push(group);
    }
    objects.set(2, `<< /Type /Pages /Kids [${groups.map((n) => `${n} 0 R`).join(" ")}] /Count ${pageCount} >>`);
  } else {
    objects.set(2, `<< /Type /Pages /Kids [${pageNumbers.map((n) => `${n} 0 R`).join(" ")}] /Count ${pageCount} ${inherited} >>`);
  }
  for (const page of pageNumbers) objects.set(page, `<< /Type /Page /Parent ${parentOf.get(page) ?? 2} 0 R /Contents ${page + 1} 0 R${pageExtras.get(page) ?? ""} >>`);
  return options.compressed ? compressedPdf(objects, contents, next, options) : classicPdf(objects, contents, next, options);
}

/** A PDF of these objects, numbered from 1 (the first the catalog), with a cross-reference table. */
export function pdfOf(objects: string[]): Buffer {
  const out = fileWriter("%PDF-1.4\n");
  const offsets = objects.map((body, i) => {
    const at = out.size();
    out.add(`${i + 1} 0 obj\n${body}\nendobj\n`);
    return at;
  });
  out.add(tableAndTrailer([0, ...offsets], out.size(), ""));
  return out.bytes();
}

/** A cross-reference table of objects 1 on at `offsets[1…]`, and the trailer after it, for a
 * table that starts at `xref`; `extra`: more trailer entries. */
function tableAndTrailer(offsets: number[], xref: number, extra: string): string {
  let table = `xref\n0 ${offsets.length}\n0000000000 65535 f \n`;
  for (let n = 1; n < offsets.length; n++) table += `${String(offsets[n]).padStart(10, "0")} 00000 n \n`;
  return `${table}trailer\n<< /Size ${offsets.length} /Root 1 0 R${extra} >>\nstartxref\n${xref}\n%%EOF\n`;
}

/** A stream object's body: a content stream (text) or an image (bytes). */
function streamObject(data: string | Buffer): Buffer[] {
  const image = typeof data !== "string";
  const bytes = image ? data : Buffer.from(data, "latin1");
  const dict = image ? `/Type /XObject /Subtype /Image /Width ${bytes.length} /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 ` : "";
  return [Buffer.from(`<< ${dict}/Length ${bytes.length} >>\nstream\n`, "latin1"), bytes, Buffer.from("\nendstream", "latin1")];
}

function classicPdf(objects: Map<number, string>, contents: Map<number, string | Buffer>, size: number, options: TestPdfOptions): Buffer {
  const out = fileWriter("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n");
  const offsets: number[] = [];
  for (let n = 1; n < size; n++) {
    offsets[n] = out.size();
    const body = objects.get(n);
    out.add(`${n} 0 obj\n`, ...(body === undefined ? streamObject(contents.get(n)!) : [body]), "\nendobj\n");
  }
  const encrypt = options.encrypted ? " /Encrypt << /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >> /ID [<01> <01>]" : "";
  out.add(tableAndTrailer(offsets, out.size(), encrypt));
  return out.bytes();
}

/** Every dictionary object goes into one object stream; the content streams stay outside it (a
 * stream cannot be in an object stream), and a cross-reference stream, with PNG "Up" prediction
 * as writers make them, lists all. */
function compressedPdf(objects: Map<number, string>, contents: Map<number, string | Buffer>, size: number, options: TestPdfOptions): Buffer {
  const inStream = [...objects.keys()].sort((a, b) => a - b);
  const objStm = size;
  const xrefNumber = size + 1;
  let header = "";
  let body = "";
  for (const n of inStream) {
    header += `${n} ${body.length} `;
    body += `${objects.get(n)}\n`;
  }
  const packed = deflateSync(Buffer.from(header + body, "latin1"));
  const out = fileWriter("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n");
  const add = out.add;
  const rows: [number, number, number][] = [[0, 0, 65535]];
  for (let n = 1; n < size; n++) {
    if (objects.has(n)) {
      rows[n] = [2, objStm, inStream.indexOf(n)];
      continue;
    }
    rows[n] = [1, out.size(), 0];
    add(`${n} 0 obj\n`, ...streamObject(contents.get(n)!), "\nendobj\n");
  }
  rows[objStm] = [1, out.size(), 0];
  add(`${objStm} 0 obj\n<< /Type /ObjStm /N ${inStream.length} /First ${header.length} /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`);
  add(packed);
  add("\nendstream\nendobj\n");
  const xrefOffset = out.size();
  rows[xrefNumber] = [1, xrefOffset, 0];
  const encrypt = options.encrypted ? " /Encrypt << /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >> /ID [<01> <01>]" : "";
  const xrefData = deflateSync(upPredicted(rows.map(([type, field2, field3]) => [type, ...bytes(field2, 4), ...bytes(field3, 2)]), 7));
  add(`${xrefNumber} 0 obj\n<< /Type /XRef /Size ${xrefNumber + 1} /W [1 4 2] /Root 1 0 R${encrypt} /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >> /Length ${xrefData.length} >>\nstream\n`);
  add(xrefData);
  add(`\nendstream\nendobj\nstartxref\n${xrefOffset}\n%%EOF\n`);
  return out.bytes();
}

function bytes(value: number, width: number): number[] {
  return Array.from({ length: width }, (_, i) => (value >>> (8 * (width - 1 - i))) & 0xff);
}

/** Rows with PNG "Up" filtering: each row is its difference from the one above, after a filter byte of 2. */
function upPredicted(rows: number[][], columns: number): Buffer {
  const out = Buffer.alloc(rows.length * (columns + 1));
  rows.forEach((row, r) => {
    out[r * (columns + 1)] = 2;
    for (let c = 0; c < columns; c++) out[r * (columns + 1) + 1 + c] = (row[c] - (r > 0 ? rows[r - 1][c] : 0)) & 0xff;
  });
  return out;
}
