// A JPEG decoder for baseline images whose one scan holds every component (what cameras, phones
// and most software write) that hands over each row of pixels as soon as its MCU row is decoded:
// it holds a few rows, not the picture, so a 64-megapixel photo is shrunk in tens of megabytes.
// Other JPEGs (progressive, several scans, 12-bit) are left to jpeg-js, which holds it all.
//
// Colour as libjpeg and browsers see it: one component is grey; three are YCbCr, or RGB where an
// Adobe marker says no transform (or the components are named R, G, B); four are CMYK, YCCK where
// the Adobe marker says so, and stored inverted when an Adobe marker is there (as Photoshop writes
// them), plain otherwise.
import type { Dimensions, RowSink } from "./area-scaler.ts";
import { BitReader, type BlockCoding, huffmanTable, type HuffmanTable, inverseDct, readBlock, scaledQuant } from "./jpeg-blocks.ts";

type Component = { id: number; h: number; v: number; quantTable: number };
type Frame = Dimensions & { components: Component[] };

/** Decodes `bytes` into the sink `sinkFor` gives for its size. False, having decoded nothing, when
 * it is a JPEG of a kind this decoder leaves to another; throws an Error naming what is wrong with
 * a damaged one. */
export function decodeJpegRows(bytes: Uint8Array, sinkFor: (size: Dimensions) => RowSink): RowSink | false {
  const quant: Int32Array[] = [];
  const dc: HuffmanTable[] = [];
  const ac: HuffmanTable[] = [];
  let frame: Frame | undefined;
  let adobeTransform: number | undefined;
  let restartInterval = 0;
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error("it does not start as a JPEG does");
  let at = 2;
  for (;;) {
    while (bytes[at] === 0xff && bytes[at + 1] === 0xff) at++; // Fill bytes.
    if (at + 4 > bytes.length) throw new Error("it ends before its image data");
    if (bytes[at] !== 0xff) throw new Error(`no marker where one belongs (byte ${at})`);
    const marker = bytes[at + 1]!;
    const length = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    const segment = bytes.subarray(at + 4, at + 2 + length);
    if (segment.length !== length - 2) throw new Error("a segment is cut short");
    at += 2 + length;
    if (marker === 0xc0 || marker === 0xc1) frame = readFrame(segment);
    else if (marker === 0xc4) readHuffmanTables(segment, dc, ac);
    else if (marker === 0xdb) readQuantTables(segment, quant);
    else if (marker === 0xdd) restartInterval = (segment[0]! << 8) | segment[1]!;
    else if (marker === 0xee && segment.length >= 12 && String.fromCharCode(...segment.subarray(0, 5)) === "Adobe") adobeTransform = segment[11];
    else if (marker === 0xd9) throw new Error("it has no image data");
    else if (marker >= 0xc2 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return false; // Progressive, lossless or arithmetic.
    else if (marker === 0xda) {
      if (!frame) throw new Error("its image data comes before its frame header");
      const scan = readScanHeader(segment, frame, dc, ac, quant);
      if (!scan || frame.height === 0) return false;
      const sink = sinkFor(frame);
      decodeScan(bytes, at, frame, scan, restartInterval, colourOf(frame, adobeTransform), sink);
      return sink;
    }
  }
}

function readFrame(segment: Uint8Array): Frame | undefined {
  const count = segment[5]!;
  if (segment.length < 6 + count * 3) throw new Error("its frame header is cut short");
  const components = Array.from({ length: count }, (_, i) => {
    const at = 6 + i * 3;
    return { id: segment[at]!, h: segment[at + 1]! >> 4, v: segment[at + 1]! & 15, quantTable: segment[at + 2]! };
  });
  if (segment[0] !== 8) return { width: 0, height: 0, components: [] }; // 12-bit samples: not decoded here.
  if (components.some((c) => c.h < 1 || c.h > 4 || c.v < 1 || c.v > 4)) throw new Error("a component has a sampling factor outside 1–4");
  const width = (segment[3]! << 8) | segment[4]!;
  if (width === 0) throw new Error("its frame header gives it no width");
  return { height: (segment[1]! << 8) | segment[2]!, width, components };
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

type Scan = BlockCoding[];

/** Each frame component's tables, in frame order; undefined when the scan does not hold them all. */
function readScanHeader(segment: Uint8Array, frame: Frame, dc: HuffmanTable[], ac: HuffmanTable[], quant: Int32Array[]): Scan | undefined {
  const count = segment[0]!;
  if (count !== frame.components.length) return undefined;
  return frame.components.map((component) => {
    const i = Array.from({ length: count }, (_, k) => segment[1 + 2 * k]).indexOf(component.id);
    if (i < 0) throw new Error(`component ${component.id} is not in the scan`);
    const tables = segment[2 + 2 * i]!;
    const coding = { dc: dc[tables >> 4], ac: ac[tables & 15], quant: quant[component.quantTable] && scaledQuant(quant[component.quantTable]!), previousDc: 0 };
    if (!coding.dc || !coding.ac) throw new Error("its scan names a Huffman table it does not define");
    if (!coding.quant) throw new Error("a component names a quantization table it does not define");
    return coding as BlockCoding;
  });
}

/** Writes the pixel of `samples` (one per component) as RGBA; the array clamps and rounds. */
type Colour = (samples: number[], out: Uint8ClampedArray, at: number) => void;

function colourOf(frame: Frame, adobeTransform: number | undefined): Colour {
  const ids = frame.components.map((c) => c.id);
  switch (frame.components.length) {
    case 1:
      return ([y], out, at) => rgb(out, at, y!, y!, y!);
    case 3:
      if (adobeTransform === 0 || (adobeTransform === undefined && String.fromCharCode(...ids) === "RGB")) return ([r, g, b], out, at) => rgb(out, at, r!, g!, b!);
      return ([y, cb, cr], out, at) => ycc(out, at, y!, cb!, cr!);
    case 4: {
      const inverted = adobeTransform !== undefined;
      return ([c0, c1, c2, k], out, at) => {
        // YCCK is CMYK whose first three went through YCbCr as their inverses (libjpeg's view).
        if (adobeTransform === 2) {
          ycc(out, at, c0!, c1!, c2!);
          c0 = 255 - out[at]!;
          c1 = 255 - out[at + 1]!;
          c2 = 255 - out[at + 2]!;
        }
        // Ink is 255 - sample where the samples are inverted; light left is 255 - ink, of both.
        const light = (ink: number) => (inverted ? ink * k! : (255 - ink) * (255 - k!)) / 255;
        rgb(out, at, light(c0!), light(c1!), light(c2!));
      };
    }
    default:
      throw new Error(`it has ${frame.components.length} colour components`);
  }
}

function rgb(out: Uint8ClampedArray, at: number, r: number, g: number, b: number): void {
  out[at] = r;
  out[at + 1] = g;
  out[at + 2] = b;
  out[at + 3] = 255;
}

function ycc(out: Uint8ClampedArray, at: number, y: number, cb: number, cr: number): void {
  rgb(out, at, y + 1.402 * (cr - 128), y - 0.344136 * (cb - 128) - 0.714136 * (cr - 128), y + 1.772 * (cb - 128));
}

/** The scan from `at`, one MCU row at a time: its blocks are decoded into a band of each
 * component, then each pixel row of the band is coloured and handed to `sink`. */
function decodeScan(bytes: Uint8Array, at: number, frame: Frame, scan: Scan, restartInterval: number, colour: Colour, sink: RowSink): void {
  const { width, height, components } = frame;
  // A lone component's MCU is one block, whatever its sampling factors say.
  const single = components.length === 1;
  const factors = components.map((c) => (single ? { h: 1, v: 1 } : { h: c.h, v: c.v }));
  const hMax = Math.max(...factors.map((f) => f.h));
  const vMax = Math.max(...factors.map((f) => f.v));
  const mcusAcross = Math.ceil(width / (8 * hMax));
  const mcusDown = Math.ceil(height / (8 * vMax));
  const bands = factors.map((f) => {
    const stride = mcusAcross * f.h * 8;
    return { stride, samples: new Uint8Array(stride * f.v * 8), columns: Int32Array.from({ length: width }, (_, x) => Math.floor((x * f.h) / hMax)) };
  });
  const reader = new BitReader(bytes, at);
  const block = new Float64Array(64);
  const pixels = new Uint8ClampedArray(width * 4);
  const row = new Uint8Array(pixels.buffer);
  const samples = new Array<number>(components.length).fill(0);
  let mcus = 0;
  for (let my = 0; my < mcusDown; my++) {
    for (let mx = 0; mx < mcusAcross; mx++) {
      if (restartInterval > 0 && mcus > 0 && mcus % restartInterval === 0) {
        reader.restart();
        for (const coding of scan) coding.previousDc = 0;
      }
      mcus++;
      for (let c = 0; c < components.length; c++) {
        const { h, v } = factors[c]!;
        const band = bands[c]!;
        for (let by = 0; by < v; by++) {
          for (let bx = 0; bx < h; bx++) {
            readBlock(reader, scan[c]!, block);
            inverseDct(block, band.samples, by * 8 * band.stride + (mx * h + bx) * 8, band.stride);
          }
        }
      }
    }
    const rows = Math.min(8 * vMax, height - my * 8 * vMax);
    for (let ly = 0; ly < rows; ly++) {
      const lines = factors.map((f, c) => Math.floor((ly * f.v) / vMax) * bands[c]!.stride);
      for (let x = 0; x < width; x++) {
        for (let c = 0; c < samples.length; c++) samples[c] = bands[c]!.samples[lines[c]! + bands[c]!.columns[x]!]!;
        colour(samples, pixels, x * 4);
      }
      sink.push(row);
    }
  }
}
