// Small PDFs written by hand in tests: each page draws the words "Page N", so that a test can tell
// which pages a PDF holds by its page contents.
import { deflateSync } from "node:zlib";

export type TestPdfOptions = {
  /** Pages grouped under intermediate page-tree nodes of this many pages each, which carry the
   * pages' MediaBox and Resources for them to inherit. */
  groupsOf?: number;
  /** A cross-reference stream, with the page tree in a compressed object stream (PDF 1.5). */
  compressed?: boolean;
  /** An /Encrypt entry in the trailer, as a password-protected PDF has. */
  encrypted?: boolean;
};

/** A valid PDF of `pageCount` pages. */
export function testPdf(pageCount: number, options: TestPdfOptions = {}): Buffer {
  // Objects: 1 catalog, 2 page-tree root, 3 font, then per group a node, then per page a page and its contents.
  const objects = new Map<number, string>();
  objects.set(1, "<< /Type /Catalog /Pages 2 0 R >>");
  objects.set(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  let next = 4;
  const pageNumbers: number[] = [];
  const contents = new Map<number, string>();
  for (let i = 1; i <= pageCount; i++) {
    const page = next++;
    const content = next++;
    pageNumbers.push(page);
    contents.set(content, `BT /F1 24 Tf 72 720 Td (Page ${i}) Tj ET`);
  }
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
  pageNumbers.forEach((page, i) => objects.set(page, `<< /Type /Page /Parent ${parentOf.get(page) ?? 2} 0 R /Contents ${page + 1} 0 R >>`));
  return options.compressed ? compressedPdf(objects, contents, next, options) : classicPdf(objects, contents, next, options);
}

function streamObject(text: string): string {
  return `<< /Length ${Buffer.byteLength(text, "latin1")} >>\nstream\n${text}\nendstream`;
}

function classicPdf(objects: Map<number, string>, contents: Map<number, string>, size: number, options: TestPdfOptions): Buffer {
  let out = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  for (let n = 1; n < size; n++) {
    offsets[n] = Buffer.byteLength(out, "latin1");
    const body = objects.get(n) ?? streamObject(contents.get(n)!);
    out += `${n} 0 obj\n${body}\nendobj\n`;
  }
  const xref = Buffer.byteLength(out, "latin1");
  out += `xref\n0 ${size}\n0000000000 65535 f \n`;
  for (let n = 1; n < size; n++) out += `${String(offsets[n]).padStart(10, "0")} 00000 n \n`;
  const encrypt = options.encrypted ? " /Encrypt << /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >> /ID [<01> <01>]" : "";
  out += `trailer\n<< /Size ${size} /Root 1 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

/** Every dictionary object goes into one object stream; the content streams stay outside it (a
 * stream cannot be in an object stream), and a cross-reference stream, with PNG "Up" prediction
 * as writers make them, lists all. */
function compressedPdf(objects: Map<number, string>, contents: Map<number, string>, size: number, options: TestPdfOptions): Buffer {
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
  const chunks: Buffer[] = [Buffer.from("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let length = chunks[0].length;
  const add = (piece: Buffer | string) => {
    const bytes = typeof piece === "string" ? Buffer.from(piece, "latin1") : piece;
    chunks.push(bytes);
    length += bytes.length;
  };
  const rows: [number, number, number][] = [[0, 0, 65535]];
  for (let n = 1; n < size; n++) {
    if (objects.has(n)) {
      rows[n] = [2, objStm, inStream.indexOf(n)];
      continue;
    }
    rows[n] = [1, length, 0];
    add(`${n} 0 obj\n${streamObject(contents.get(n)!)}\nendobj\n`);
  }
  rows[objStm] = [1, length, 0];
  add(`${objStm} 0 obj\n<< /Type /ObjStm /N ${inStream.length} /First ${header.length} /Filter /FlateDecode /Length ${packed.length} >>\nstream\n`);
  add(packed);
  add("\nendstream\nendobj\n");
  const xrefOffset = length;
  rows[xrefNumber] = [1, xrefOffset, 0];
  const encrypt = options.encrypted ? " /Encrypt << /Filter /Standard /V 1 /R 2 /O <00> /U <00> /P -4 >> /ID [<01> <01>]" : "";
  const xrefData = deflateSync(upPredicted(rows.map(([type, field2, field3]) => [type, ...bytes(field2, 4), ...bytes(field3, 2)]), 7));
  add(`${xrefNumber} 0 obj\n<< /Type /XRef /Size ${xrefNumber + 1} /W [1 4 2] /Root 1 0 R${encrypt} /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >> /Length ${xrefData.length} >>\nstream\n`);
  add(xrefData);
  add(`\nendstream\nendobj\nstartxref\n${xrefOffset}\n%%EOF\n`);
  return Buffer.concat(chunks);
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
