// A PNG decoder that inflates the image data as a stream and hands over each row of pixels as
// soon as it is unfiltered: it holds two rows, not the picture, so a 64-megapixel screenshot is
// shrunk in tens of megabytes. Interlaced PNGs, whose rows come in seven passes, are left to
// pngjs, which holds it all.
import { Readable } from "node:stream";
import zlib from "node:zlib";
import type { Dimensions, RowSink } from "./area-scaler.ts";

type Header = Dimensions & { depth: number; colourType: number; interlaced: boolean };

/** Channels of each colour type: grey, -, RGB, palette, grey and alpha, -, RGBA. */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = { 0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16] };
/** The chunks this decoder uses, whose CRCs it checks. */
const READ_CHUNKS = new Set(["IHDR", "PLTE", "tRNS", "IDAT", "IEND"]);

/** Decodes `bytes` into the sink `sinkFor` gives for its size. False, having decoded nothing, for
 * an interlaced PNG; throws an Error naming what is wrong with a damaged one (a chunk it uses that
 * fails its CRC among them). */
export async function decodePngRows(bytes: Uint8Array, sinkFor: (size: Dimensions) => RowSink): Promise<RowSink | false> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let header: Header | undefined;
  let palette: Uint8Array | undefined;
  let transparency: Uint8Array | undefined;
  const data: Uint8Array[] = [];
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (at + 12 + length > bytes.length) throw new Error(`its ${type} chunk is cut short`);
    // The chunks used are checked against their CRCs. A damaged critical one refuses the image; a
    // damaged tRNS is dropped (as libspng drops an ancillary chunk), leaving the pixels opaque.
    const intact = !READ_CHUNKS.has(type) || zlib.crc32(bytes.subarray(at + 4, at + 8 + length)) === view.getUint32(at + 8 + length);
    at += 12 + length;
    if (!intact && type !== "tRNS") throw new Error(`its ${type} chunk is damaged (its CRC does not match its bytes)`);
    if (type === "IHDR") header = readHeader(body);
    else if (type === "PLTE") palette = body;
    else if (type === "tRNS") transparency = intact ? body : undefined;
    else if (type === "IDAT") data.push(body);
    else if (type === "IEND") break;
  }
  if (!header) throw new Error("it has no IHDR chunk");
  if (header.interlaced) return false;
  if (header.colourType === 3 && !palette) throw new Error("it has no palette");
  const sink = sinkFor(header);
  const toRgba = converter(header, palette, transparency);
  const channels = CHANNELS[header.colourType]!;
  const bitsPerPixel = channels * header.depth;
  const rowBytes = Math.ceil((header.width * bitsPerPixel) / 8);
  const step = Math.max(1, bitsPerPixel >> 3); // Bytes back to the pixel a filter refers to.
  let previous = new Uint8Array(rowBytes);
  let current = new Uint8Array(rowBytes);
  const rgba = new Uint8Array(header.width * 4);
  let filter = -1; // The current row's filter type, once its first byte has come.
  let filled = 0;
  let rows = 0;
  const inflater = Readable.from(data).pipe(zlib.createInflate({ chunkSize: 1 << 16 }));
  for await (const chunk of inflater as AsyncIterable<Buffer>) {
    for (let i = 0; i < chunk.length && rows < header.height; ) {
      if (filter < 0) {
        filter = chunk[i++]!;
        continue;
      }
      const take = Math.min(rowBytes - filled, chunk.length - i);
      current.set(chunk.subarray(i, i + take), filled);
      filled += take;
      i += take;
      if (filled < rowBytes) continue;
      unfilter(filter, current, previous, step);
      toRgba(current, rgba);
      sink.push(rgba);
      rows++;
      [previous, current] = [current, previous];
      filter = -1;
      filled = 0;
    }
  }
  return sink;
}

function readHeader(body: Uint8Array): Header {
  if (body.length < 13) throw new Error("its IHDR chunk is cut short");
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const header = { width: view.getUint32(0), height: view.getUint32(4), depth: body[8]!, colourType: body[9]!, interlaced: body[12] === 1 };
  if (!DEPTHS[header.colourType]?.includes(header.depth)) throw new Error(`it has colour type ${header.colourType} at bit depth ${header.depth}, which PNG does not define`);
  if (header.width === 0 || header.height === 0) throw new Error("it has no pixels");
  return header;
}

function unfilter(filter: number, row: Uint8Array, above: Uint8Array, step: number): void {
  const n = row.length;
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = step; i < n; i++) row[i] = row[i]! + row[i - step]!;
      return;
    case 2:
      for (let i = 0; i < n; i++) row[i] = row[i]! + above[i]!;
      return;
    case 3:
      for (let i = 0; i < n; i++) row[i] = row[i]! + (((i >= step ? row[i - step]! : 0) + above[i]!) >> 1);
      return;
    case 4:
      for (let i = 0; i < n; i++) {
        const a = i >= step ? row[i - step]! : 0;
        const b = above[i]!;
        const c = i >= step ? above[i - step]! : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        row[i] = row[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
      return;
    default:
      throw new Error(`a row has filter type ${filter}, which PNG does not define`);
  }
}

/** Turns an unfiltered row into RGBA: 16-bit samples are rounded to 8 bits, grey of fewer bits is
 * spread over 0–255, and a tRNS chunk makes its colour (or its palette entries) transparent. */
function converter(header: Header, palette: Uint8Array | undefined, transparency: Uint8Array | undefined): (row: Uint8Array, out: Uint8Array) => void {
  const { width, depth, colourType } = header;
  const channels = CHANNELS[colourType]!;
  const wide = depth === 16;
  // The 16-bit value (or the value of `depth` bits) tRNS names for a grey or RGB pixel.
  const key = (row: Uint8Array, x: number, channel: number) => (wide ? (row[(x * channels + channel) * 2]! << 8) | row[(x * channels + channel) * 2 + 1]! : row[x * channels + channel]!);
  const sample = (row: Uint8Array, x: number, channel: number) => (wide ? Math.round(key(row, x, channel) / 257) : row[x * channels + channel]!);
  const keyOf = (channel: number) => (transparency && transparency.length >= 2 * (channel + 1) ? (transparency[2 * channel]! << 8) | transparency[2 * channel + 1]! : -1);
  const packed = (row: Uint8Array, x: number) => (row[(x * depth) >> 3]! >> (8 - depth - ((x * depth) & 7))) & ((1 << depth) - 1);
  switch (colourType) {
    case 0: {
      const grey = keyOf(0);
      const scale = 255 / ((1 << Math.min(depth, 8)) - 1);
      return (row, out) => {
        for (let x = 0; x < width; x++) {
          const raw = depth < 8 ? packed(row, x) : key(row, x, 0);
          const v = depth < 8 ? Math.round(raw * scale) : sample(row, x, 0);
          put(out, x, v, v, v, raw === grey ? 0 : 255);
        }
      };
    }
    case 2: {
      const [r, g, b] = [keyOf(0), keyOf(1), keyOf(2)];
      return (row, out) => {
        for (let x = 0; x < width; x++) {
          const clear = r >= 0 && key(row, x, 0) === r && key(row, x, 1) === g && key(row, x, 2) === b;
          put(out, x, sample(row, x, 0), sample(row, x, 1), sample(row, x, 2), clear ? 0 : 255);
        }
      };
    }
    case 3: {
      const colours = new Uint8Array(256 * 4);
      for (let i = 0; i < 256; i++) {
        if (i * 3 + 2 < palette!.length) colours.set(palette!.subarray(i * 3, i * 3 + 3), i * 4);
        colours[i * 4 + 3] = transparency && i < transparency.length ? transparency[i]! : 255;
      }
      return (row, out) => {
        for (let x = 0; x < width; x++) {
          const i = (depth === 8 ? row[x]! : packed(row, x)) * 4;
          put(out, x, colours[i]!, colours[i + 1]!, colours[i + 2]!, colours[i + 3]!);
        }
      };
    }
    case 4:
      return (row, out) => {
        for (let x = 0; x < width; x++) put(out, x, sample(row, x, 0), sample(row, x, 0), sample(row, x, 0), sample(row, x, 1));
      };
    default:
      return (row, out) => {
        if (!wide) return out.set(row.subarray(0, width * 4));
        for (let x = 0; x < width; x++) put(out, x, sample(row, x, 0), sample(row, x, 1), sample(row, x, 2), sample(row, x, 3));
      };
  }
}

function put(out: Uint8Array, x: number, r: number, g: number, b: number, a: number): void {
  const o = x * 4;
  out[o] = r;
  out[o + 1] = g;
  out[o + 2] = b;
  out[o + 3] = a;
}
