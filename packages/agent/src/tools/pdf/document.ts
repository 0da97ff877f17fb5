// A PDF's structure, read only as far as Read needs it: the cross-reference data (tables and PDF
// 1.5 streams, updates included), the objects it points to (compressed object streams too), each
// read when first asked for, and the page tree, walked only to the pages asked for
// (page-tree.ts). Content streams are never decoded. A file whose cross-reference data is
// broken is read again by finding its objects where they stand, as PDF viewers do.
import { inflateSync } from "node:zlib";
import { pageTree, type PdfPage } from "./page-tree.ts";
import { entry, isDict, isKeyword, isName, isRef, PdfError, PdfParser, type PdfDict, type PdfRef, type PdfValue } from "./syntax.ts";

export type { PdfPage } from "./page-tree.ts";

type XrefEntry = { type: "offset"; offset: number; gen: number } | { type: "compressed"; stream: number; index: number };

export type PdfDocument = {
  bytes: Buffer;
  trailer: PdfDict;
  /** The offset of the newest cross-reference section, and whether it is a stream. */
  startxref: number;
  xrefIsStream: boolean;
  /** One more than the highest object number in use. */
  size: number;
  root: PdfRef;
  /** How many pages it has: its page tree's /Count. */
  pageCount: number;
  /** Pages `first` to `last` (counting from 1, within pageCount), read from the page tree only as
   * far as they need; throws PdfError when the tree is broken on the way to them. */
  pages(range: { first: number; last: number }): PdfPage[];
  /** An object by number (the one the newest cross-reference section lists). */
  resolve(value: PdfValue | undefined): PdfValue | undefined;
  /** The data of stream object `num` as the file holds it (filters not undone), when it is one. */
  streamData(num: number): Buffer | undefined;
  /** Where the objects that stand uncompressed in the file are. */
  objectOffsets(): Map<number, { offset: number; gen: number }>;
  /** How many objects have been read from the file so far: how much of it opening and the pages
   * asked for took. */
  objectsRead(): number;
};

/** More than a cross-reference or object stream holds inflated (a few MB for a file of a million
 * objects): a few KB of deflated zeros could otherwise fill the memory. */
const MAX_INFLATED = 64 * 1024 * 1024;
/** Loads waiting on one another deeper than a real file has them. */
const MAX_LOADING = 32;

/** Reads the structure of the PDF in `bytes`; throws PdfError saying what is wrong with it. */
export function openPdf(bytes: Buffer): PdfDocument {
  if (!bytes.subarray(0, 1024).includes("%PDF-", 0, "latin1")) throw new PdfError("it does not start with a PDF header (%PDF-)");
  let xref: Xref;
  try {
    xref = readXref(bytes);
    return documentOf(bytes, xref);
  } catch (error) {
    if (!(error instanceof PdfError) || error instanceof EncryptedPdf) throw error;
    // Broken cross-reference data: find the objects where they stand.
    xref = scanObjects(bytes);
    return documentOf(bytes, xref);
  }
}

export class EncryptedPdf extends PdfError {}

type Xref = { entries: Map<number, XrefEntry>; trailer: PdfDict; startxref: number; isStream: boolean };

function documentOf(bytes: Buffer, xref: Xref): PdfDocument {
  if (xref.trailer.entries.has("Encrypt")) throw new EncryptedPdf("it is encrypted (password-protected)");
  const cache = new Map<number, PdfValue>();
  const streams = new Map<number, Buffer>();
  const objectStreams = new Map<number, { parser: PdfParser; offsets: number[] }>();
  /** How many loads are under way, each waiting for the next (a stream's /Length, an object
   * stream): a few in a real file, but a chain of them would overflow the stack. */
  let loading = 0;
  let read = 0;
  /** Object `num`, kept for the next time unless `keep` is false. */
  const load = (num: number, keep = true): PdfValue => {
    const found = cache.get(num);
    if (found !== undefined) return found;
    const where = xref.entries.get(num);
    if (!where) return null;
    if (loading >= MAX_LOADING) throw new PdfError(`its objects' stream lengths refer to one another more than ${MAX_LOADING} deep (at object ${num})`);
    loading++;
    try {
      read++;
      const value = loadFrom(num, where);
      if (!keep) {
        cache.delete(num);
        streams.delete(num);
      }
      return value;
    } catch (error) {
      cache.delete(num); // not read, rather than read as null
      throw error;
    } finally {
      loading--;
    }
  };
  const loadFrom = (num: number, where: XrefEntry): PdfValue => {
    cache.set(num, null); // a reference cycle reads as null rather than recursing forever
    let value: PdfValue;
    if (where.type === "offset") {
      const found = readIndirect(bytes, where.offset, num, resolve);
      value = found.value;
      if (found.data) streams.set(num, found.data);
    } else {
      let stream = objectStreams.get(where.stream);
      if (!stream) objectStreams.set(where.stream, (stream = openObjectStream(bytes, xref, where.stream, resolve)));
      const offset = stream.offsets[where.index];
      if (offset === undefined) throw new PdfError(`object ${num} is missing from its object stream`);
      stream.parser.pos = offset;
      value = stream.parser.value();
    }
    cache.set(num, value);
    return value;
  };
  const resolve = (value: PdfValue | undefined): PdfValue | undefined => (isRef(value) ? load(value.num) : value);
  const peek = (value: PdfValue | undefined): PdfValue | undefined => (isRef(value) ? load(value.num, false) : value);
  const root = xref.trailer.entries.get("Root")?.value;
  if (!isRef(root)) throw new PdfError("its trailer names no document catalog (/Root)");
  const catalog = resolve(root);
  if (!isDict(catalog)) throw new PdfError("its document catalog is missing");
  const tree = pageTree(catalog, resolve, peek);
  // A loop, not Math.max(...): spread arguments overflow the stack past about 120,000 objects.
  let size = Number(entry(xref.trailer, "Size")) || 0;
  for (const num of xref.entries.keys()) if (num >= size) size = num + 1;
  const objectOffsets = () => new Map(xref.entries.entries().flatMap(([num, where]) => (where.type === "offset" ? [[num, { offset: where.offset, gen: where.gen }] as const] : [])));
  const streamData = (num: number) => {
    load(num);
    return streams.get(num);
  };
  const pages = ({ first, last }: { first: number; last: number }) => tree.pages(first, last);
  const objectsRead = () => read;
  return { bytes, trailer: xref.trailer, startxref: xref.startxref, xrefIsStream: xref.isStream, size, root, pageCount: tree.count, pages, resolve, streamData, objectOffsets, objectsRead };
}

/** An indirect object "num gen obj … endobj" at `offset`, and where its stream's data starts
 * (when it is a stream). */
function readIndirect(bytes: Buffer, offset: number, num: number, resolve: PdfDocument["resolve"]): { value: PdfValue; data?: Buffer } {
  const parser = new PdfParser(bytes, offset);
  const found = parser.value();
  if (found !== num) throw new PdfError(`the cross-reference data points to the wrong place for object ${num}`);
  parser.value();
  parser.expect("obj");
  const value = parser.value();
  const after = parser.next();
  if (!isKeyword(after) || after.word !== "stream" || !isDict(value)) return { value };
  return { value, data: streamData(bytes, parser.pos, value, resolve) };
}

function streamData(bytes: Buffer, pos: number, dict: PdfDict, resolve: PdfDocument["resolve"]): Buffer {
  if (bytes[pos] === 0x0d) pos++;
  if (bytes[pos] === 0x0a) pos++;
  const length = resolve(entry(dict, "Length"));
  if (typeof length === "number" && length >= 0 && pos + length <= bytes.length) return bytes.subarray(pos, pos + length);
  const end = bytes.indexOf("endstream", pos, "latin1");
  if (end === -1) throw new PdfError("a stream never ends");
  return bytes.subarray(pos, end);
}

/** A stream's data with its filters undone: only FlateDecode (with PNG predictors), which is what
 * cross-reference and object streams use. */
function decodeStream(dict: PdfDict, data: Buffer, resolve: PdfDocument["resolve"]): Buffer {
  const filter = resolve(entry(dict, "Filter"));
  const filters = (Array.isArray(filter) ? filter : filter === undefined || filter === null ? [] : [filter]).map((f) => (isName(f) ? f.name : "?"));
  if (filters.length === 0) return data;
  if (filters.length > 1 || filters[0] !== "FlateDecode") throw new PdfError(`it uses a stream filter Read cannot undo (${filters.join(", ")})`);
  let out: Buffer;
  try {
    out = inflateSync(data, { finishFlush: 2 /* Z_SYNC_FLUSH: take what a truncated stream holds */, maxOutputLength: MAX_INFLATED });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw new PdfError(`a compressed stream inflates to more than ${MAX_INFLATED / 1024 / 1024} MiB`);
    throw new PdfError("a compressed stream is corrupt");
  }
  const params = resolve(entry(dict, "DecodeParms"));
  const predictor = isDict(params) ? Number(resolve(entry(params, "Predictor")) ?? 1) : 1;
  if (predictor < 10) return out;
  const columns = Number(isDict(params) ? (resolve(entry(params, "Columns")) ?? 1) : 1);
  return unpredictPng(out, columns);
}

/** Undoes PNG row prediction (one byte a sample, as cross-reference streams have it). */
function unpredictPng(data: Buffer, columns: number): Buffer {
  if (!Number.isInteger(columns) || columns < 1) throw new PdfError("a stream's /Columns is not a positive whole number");
  const rows = Math.floor(data.length / (columns + 1));
  const out = Buffer.alloc(rows * columns);
  for (let r = 0; r < rows; r++) {
    const filter = data[r * (columns + 1)];
    for (let c = 0; c < columns; c++) {
      const raw = data[r * (columns + 1) + 1 + c];
      const left = c > 0 ? out[r * columns + c - 1] : 0;
      const up = r > 0 ? out[(r - 1) * columns + c] : 0;
      const upLeft = r > 0 && c > 0 ? out[(r - 1) * columns + c - 1] : 0;
      let predicted = 0;
      if (filter === 1) predicted = left;
      else if (filter === 2) predicted = up;
      else if (filter === 3) predicted = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        predicted = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      out[r * columns + c] = (raw + predicted) & 0xff;
    }
  }
  return out;
}

function openObjectStream(bytes: Buffer, xref: Xref, num: number, resolve: PdfDocument["resolve"]): { parser: PdfParser; offsets: number[] } {
  const where = xref.entries.get(num);
  if (where?.type !== "offset") throw new PdfError(`object stream ${num} is missing`);
  const { value, data } = readIndirect(bytes, where.offset, num, resolve);
  if (!isDict(value) || !data) throw new PdfError(`object ${num} is not an object stream`);
  const decoded = decodeStream(value, data, resolve);
  const count = Number(entry(value, "N"));
  const first = Number(entry(value, "First"));
  if (!Number.isInteger(count) || !Number.isInteger(first) || count < 0 || first < 0) throw new PdfError(`object stream ${num} has no valid /N and /First`);
  const parser = new PdfParser(decoded, 0);
  const offsets: number[] = [];
  for (let i = 0; i < count; i++) {
    parser.value();
    offsets.push(first + Number(parser.value()));
  }
  return { parser, offsets };
}

/** The cross-reference sections from the newest (at startxref) back through /Prev; an entry of a
 * newer section wins over an older one's. */
function readXref(bytes: Buffer): Xref {
  const tail = bytes.subarray(Math.max(0, bytes.length - 2048)).toString("latin1");
  const match = /startxref\s+(\d+)/.exec(tail.slice(tail.lastIndexOf("startxref")));
  if (!match) throw new PdfError("it has no startxref");
  const startxref = Number(match[1]);
  const entries = new Map<number, XrefEntry>();
  let trailer: PdfDict | undefined;
  let isStream = false;
  const visited = new Set<number>();
  const pending = [startxref];
  while (pending.length > 0) {
    const offset = pending.shift()!;
    if (visited.has(offset) || visited.size > 1000) continue;
    visited.add(offset);
    const parser = new PdfParser(bytes, offset);
    parser.skipSpace();
    let section: PdfDict;
    if (bytes.toString("latin1", parser.pos, parser.pos + 4) === "xref") section = readXrefTable(parser, entries);
    else {
      section = readXrefStream(bytes, offset, entries);
      if (offset === startxref) isStream = true;
    }
    trailer ??= section;
    const stm = entry(section, "XRefStm");
    if (typeof stm === "number") readXrefStream(bytes, stm, entries);
    const prev = entry(section, "Prev");
    if (typeof prev === "number") pending.push(prev);
  }
  if (!trailer) throw new PdfError("it has no trailer");
  // Free entries stood in the way of older sections' entries for those numbers; now they go.
  for (const [num, where] of entries) if (where.type === "offset" && where.offset < 0) entries.delete(num);
  return { entries, trailer, startxref, isStream };
}

function readXrefTable(parser: PdfParser, entries: Map<number, XrefEntry>): PdfDict {
  parser.expect("xref");
  for (;;) {
    const start = parser.next();
    if (isKeyword(start) && start.word === "trailer") break;
    const count = parser.value();
    if (typeof start !== "number" || typeof count !== "number") throw new PdfError("its cross-reference table is malformed");
    for (let i = 0; i < count; i++) {
      const offset = parser.value();
      const gen = parser.value();
      parser.skipSpace();
      const kind = parser.word();
      if (typeof offset !== "number" || typeof gen !== "number" || (kind !== "n" && kind !== "f")) throw new PdfError("its cross-reference table is malformed");
      if (!entries.has(start + i)) entries.set(start + i, { type: "offset", offset: kind === "n" ? offset : -1, gen });
    }
  }
  const trailer = parser.value();
  if (!isDict(trailer)) throw new PdfError("its trailer is not a dictionary");
  return trailer;
}

function readXrefStream(bytes: Buffer, offset: number, entries: Map<number, XrefEntry>): PdfDict {
  const plain = (value: PdfValue | undefined) => value; // cross-reference streams may not use indirect lengths
  const parser = new PdfParser(bytes, offset);
  parser.value();
  parser.value();
  parser.expect("obj");
  const dict = parser.value();
  const keyword = parser.next();
  if (!isDict(dict) || !isKeyword(keyword) || keyword.word !== "stream") throw new PdfError("its cross-reference data is neither a table nor a stream");
  const data = decodeStream(dict, streamData(bytes, parser.pos, dict, plain), plain);
  const widths = entry(dict, "W");
  if (!Array.isArray(widths) || widths.length !== 3 || !widths.every((w) => typeof w === "number" && w >= 0 && w <= 8)) throw new PdfError("its cross-reference stream has no valid /W");
  const [w1, w2, w3] = widths as number[];
  const index = entry(dict, "Index");
  const ranges = Array.isArray(index) ? (index as number[]) : [0, Number(entry(dict, "Size"))];
  const field = (pos: number, width: number) => {
    let value = 0;
    for (let i = 0; i < width; i++) value = value * 256 + data[pos + i];
    return value;
  };
  const rowLength = w1 + w2 + w3;
  let pos = 0;
  for (let r = 0; r + 1 < ranges.length; r += 2) {
    for (let i = 0; i < ranges[r + 1]; i++, pos += rowLength) {
      if (pos + rowLength > data.length) throw new PdfError("its cross-reference stream is cut short");
      const num = ranges[r] + i;
      const type = w1 === 0 ? 1 : field(pos, w1);
      if (entries.has(num)) continue;
      const second = field(pos + w1, w2);
      const third = field(pos + w1 + w2, w3);
      if (type === 1) entries.set(num, { type: "offset", offset: second, gen: third });
      else if (type === 0) entries.set(num, { type: "offset", offset: -1, gen: third });
      else if (type === 2) entries.set(num, { type: "compressed", stream: second, index: third });
    }
  }
  return dict;
}

/** The objects found by their "num gen obj" headers (the last of a number wins, as in an
 * updated file), and the trailer of the last "trailer" or cross-reference stream. */
function scanObjects(bytes: Buffer): Xref {
  const entries = new Map<number, XrefEntry>();
  let trailer: PdfDict | undefined;
  for (const found of matchesIn(bytes, /(?<![0-9])(\d+)\s+(\d+)\s+obj\b/g)) {
    entries.set(Number(found[1]), { type: "offset", offset: found.index, gen: Number(found[2]) });
  }
  for (const found of matchesIn(bytes, /trailer\s*<</g)) {
    try {
      const value = new PdfParser(bytes, found.index + 7).value();
      if (isDict(value) && value.entries.has("Root")) trailer = value;
    } catch {
      // A broken trailer: another may do.
    }
  }
  if (!trailer) {
    for (const [, where] of entries) {
      if (where.type !== "offset") continue;
      try {
        const parser = new PdfParser(bytes, where.offset);
        parser.value();
        parser.value();
        parser.expect("obj");
        const value = parser.value();
        if (isDict(value) && value.entries.has("Root") && isName(entry(value, "Type")) && (entry(value, "Type") as { name: string }).name === "XRef") trailer = value;
      } catch {
        // Not an object after all.
      }
    }
  }
  if (!trailer || entries.size === 0) throw new PdfError("its cross-reference data is broken and no document catalog can be found");
  return { entries, trailer, startxref: -1, isStream: false };
}

/** Bytes of a window of the scan, and how far a match may reach past its window. */
const SCAN_WINDOW = 8 * 1024 * 1024;
const SCAN_OVERLAP = 1024;

/** The matches of `pattern` (global) in `bytes` read as latin1, with their indexes in `bytes`. The
 * file is read a window at a time, so that a large one never becomes one string in V8's heap; each
 * window is read with a little before it (for look-behinds) and after it (for a match that runs
 * past its end), and keeps the matches that start inside it. */
export function* matchesIn(bytes: Buffer, pattern: RegExp, window = SCAN_WINDOW): Generator<RegExpMatchArray & { index: number }> {
  for (let start = 0; start < bytes.length; start += window) {
    const from = Math.max(0, start - 16);
    const text = bytes.toString("latin1", from, Math.min(bytes.length, start + window + SCAN_OVERLAP));
    for (const found of text.matchAll(pattern)) {
      const at = from + found.index;
      if (at >= start && at < start + window) yield Object.assign(found, { index: at });
    }
  }
}
