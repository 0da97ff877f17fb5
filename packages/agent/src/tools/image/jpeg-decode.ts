// A JPEG decoder that hands over each row of pixels as soon as it can: the markers and tables are
// read here, the scans by jpeg-stored.ts. A baseline image whose one scan holds every component
// (what cameras and phones write) is decoded an MCU row at a time, holding a few rows, not the
// picture; a progressive one, or one in several scans, keeps its coefficients (two bytes a sample)
// until the last scan. Colours as jpeg-colour.ts says.
import type { Dimensions, RowSink } from "./area-scaler.ts";
import { isStartOfFrame } from "./size.ts";
import type { Frame } from "./jpeg-bands.ts";
import { BitReader, huffmanTable, type HuffmanTable } from "./jpeg-blocks.ts";
import { colourOf } from "./jpeg-colour.ts";
import { decodeScanRows, type ScanHeader, StoredCoefficients } from "./jpeg-stored.ts";

/** Decodes `bytes` into the sink `sinkFor` gives for its size. Throws an Error naming what is
 * wrong with a damaged one, or naming its kind where it is one not decoded here: lossless,
 * arithmetic-coded or hierarchical, of 12-bit samples, or of a height given only after its data
 * (kinds no camera or phone writes). */
export function decodeJpegRows(bytes: Uint8Array, sinkFor: (size: Dimensions) => RowSink): RowSink {
  const quant: Int32Array[] = [];
  const dc: HuffmanTable[] = [];
  const ac: HuffmanTable[] = [];
  let frame: Frame | undefined;
  let adobeTransform: number | undefined;
  let restartInterval = 0;
  let stored: { coefficients: StoredCoefficients; sink: RowSink } | undefined;
  const colour = () => colourOf(frame!.components.map((c) => c.id), adobeTransform);
  const finish = () => {
    if (!stored) throw new Error("it has no image data");
    stored.coefficients.output(quant, colour(), stored.sink);
    return stored.sink;
  };
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error("it does not start as a JPEG does");
  let at = 2;
  for (;;) {
    while (bytes[at] === 0xff && bytes[at + 1] === 0xff) at++; // Fill bytes.
    // A file cut short after some scans shows what they hold, as browsers do.
    if (at + 2 > bytes.length || (at + 4 > bytes.length && bytes[at + 1] !== 0xd9)) return finish();
    if (bytes[at] !== 0xff) throw new Error(`no marker where one belongs (byte ${at})`);
    const marker = bytes[at + 1]!;
    if (marker === 0xd9) return finish();
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    const segment = bytes.subarray(at + 4, at + 2 + length);
    if (segment.length !== length - 2) throw new Error("a segment is cut short");
    at += 2 + length;
    if (marker === 0xc0 || marker === 0xc1 || marker === 0xc2) frame = readFrame(segment, marker === 0xc2);
    else if (marker === 0xc4) readHuffmanTables(segment, dc, ac);
    else if (marker === 0xdb) readQuantTables(segment, quant);
    else if (marker === 0xdd) restartInterval = (segment[0]! << 8) | segment[1]!;
    else if (marker === 0xee && segment.length >= 12 && String.fromCharCode(...segment.subarray(0, 5)) === "Adobe") adobeTransform = segment[11];
    else if (isStartOfFrame(marker)) throw new Error(notSupported(`${frameKind(marker)} JPEG`));
    else if (marker === 0xde) throw new Error(notSupported("a hierarchical JPEG")); // Its first frame may be SOF0–2, at a lower resolution.
    else if (marker === 0xda) {
      if (!frame) throw new Error("its image data comes before its frame header");
      if (frame.height === 0) throw new Error(notSupported("a JPEG whose height is given only after its image data (in a DNL marker)"));
      const scan = readScanHeader(segment, frame, dc, ac);
      if (!stored && !frame.progressive && scan.components.length === frame.components.length) {
        const sink = sinkFor(frame);
        decodeScanRows(frame, new BitReader(bytes, at), scan, restartInterval, quant, colour(), sink);
        return sink;
      }
      stored ??= { sink: sinkFor(frame), coefficients: new StoredCoefficients(frame) };
      const reader = new BitReader(bytes, at);
      stored.coefficients.readScan(reader, scan, restartInterval);
      at = nextMarker(bytes, reader.position);
    }
  }
}

function notSupported(kind: string): string {
  return `it is ${kind}, which is not supported for resizing; convert it to PNG or to a baseline JPEG first`;
}

/** What a start-of-frame marker other than SOF0–2 says of the frame, with its article. */
function frameKind(marker: number): string {
  const kinds = [(marker & 4) !== 0 && "hierarchical", (marker & 3) === 3 && "lossless", marker >= 0xc9 && "arithmetic-coded"].filter(Boolean).join(", ");
  return `${/^[aeiou]/.test(kinds) ? "an" : "a"} ${kinds}`;
}

function readFrame(segment: Uint8Array, progressive: boolean): Frame {
  const count = segment[5]!;
  if (segment.length < 6 + count * 3) throw new Error("its frame header is cut short");
  if (segment[0] !== 8) throw new Error(notSupported(`a JPEG of ${segment[0]}-bit samples`));
  const components = Array.from({ length: count }, (_, i) => {
    const at = 6 + i * 3;
    return { id: segment[at]!, h: segment[at + 1]! >> 4, v: segment[at + 1]! & 15, quantTable: segment[at + 2]! };
  });
  if (count === 0 || count === 2 || count > 4) throw new Error(`it has ${count} colour components`);
  if (components.some((c) => c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4)) throw new Error("a component has a sampling factor outside 1–4");
  const width = (segment[3]! << 8) | segment[4]!;
  if (width === 0) throw new Error("its frame header gives it no width");
  return { height: (segment[1]! << 8) | segment[2]!, width, components, progressive };
}

function readHuffmanTables(segment: Uint8Array, dc: HuffmanTable[], ac: HuffmanTable[]): void {
  for (let at = 0; at < segment.length; ) {
    const kind = segment[at]! >> 4;
    const id = segment[at]! & 15;
    const counts = segment.subarray(at + 1, at + 17);
    const total = counts.reduce((sum, n) => sum + n, 0);
    const symbols = segment.subarray(at + 17, at + 17 + total);
    if (symbols.length !== total) throw new Error("a Huffman table is cut short");
    (kind === 0 ? dc : ac)[id] = huffmanTable(counts, symbols);
    at += 17 + total;
  }
}

function readQuantTables(segment: Uint8Array, quant: Int32Array[]): void {
  for (let at = 0; at < segment.length; ) {
    const wide = segment[at]! >> 4 === 1;
    const id = segment[at]! & 15;
    const table = new Int32Array(64);
    for (let k = 0; k < 64; k++) table[k] = wide ? (segment[at + 1 + 2 * k]! << 8) | segment[at + 2 + 2 * k]! : segment[at + 1 + k]!;
    quant[id] = table;
    at += 1 + (wide ? 128 : 64);
  }
}

function readScanHeader(segment: Uint8Array, frame: Frame, dc: HuffmanTable[], ac: HuffmanTable[]): ScanHeader {
  const count = segment[0]!;
  if (count === 0 || segment.length < 4 + 2 * count) throw new Error("a scan header is cut short");
  const components = Array.from({ length: count }, (_, k) => {
    const index = frame.components.findIndex((c) => c.id === segment[1 + 2 * k]);
    if (index < 0) throw new Error(`a scan holds component ${segment[1 + 2 * k]}, which the frame does not have`);
    const tables = segment[2 + 2 * k]!;
    return { index, dc: dc[tables >> 4], ac: ac[tables & 15] };
  });
  const at = 1 + 2 * count;
  return { components, start: segment[at]!, end: segment[at + 1]!, high: segment[at + 2]! >> 4, low: segment[at + 2]! & 15 };
}

/** The start of the next marker from `at` on: past the scan's data, stuffed bytes and restarts. */
function nextMarker(bytes: Uint8Array, at: number): number {
  while (at + 1 < bytes.length && !(bytes[at] === 0xff && bytes[at + 1] !== 0 && (bytes[at + 1]! < 0xd0 || bytes[at + 1]! > 0xd7))) at++;
  return at;
}
