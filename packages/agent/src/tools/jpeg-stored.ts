// The JPEGs whose scans each hold only part of the picture (progressive ones, and baseline ones
// in several scans): every block's coefficients are kept, two bytes each, until the last scan,
// and then turned into pixels one MCU row at a time.
import type { RowSink } from "./area-scaler.ts";
import { bandsFor, type Frame, type Layout, layoutOf } from "./jpeg-bands.ts";
import { type BitReader, extend, type HuffmanTable, inverseDct, naturalQuant, ZIGZAG } from "./jpeg-blocks.ts";
import type { Colour } from "./jpeg-colour.ts";

/** A scan: which frame components it holds, with their tables, and which coefficients (spectral
 * selection `start`–`end`) to which bits (successive approximation: `high`, `low`). */
export type ScanHeader = { components: { index: number; dc?: HuffmanTable; ac?: HuffmanTable }[]; start: number; end: number; high: number; low: number };

export class StoredCoefficients {
  readonly frame: Frame;
  readonly layout: Layout;
  /** Per component, its blocks row by row (padded to whole MCUs), 64 coefficients each in natural order. */
  readonly #blocks: Int16Array[];
  readonly #blocksAcross: number[];

  constructor(frame: Frame) {
    this.frame = frame;
    this.layout = layoutOf(frame);
    const { factors, mcusAcross, mcusDown } = this.layout;
    this.#blocksAcross = factors.map((f) => mcusAcross * f.h);
    this.#blocks = factors.map((f, c) => new Int16Array(this.#blocksAcross[c]! * mcusDown * f.v * 64));
  }

  /** Decodes one scan's data from `reader`. */
  readScan(reader: BitReader, scan: ScanHeader, restartInterval: number): void {
    const { factors, hMax, vMax, mcusAcross, mcusDown } = this.layout;
    const previousDc = scan.components.map(() => 0);
    const eobRun = { left: 0 };
    const decode = blockDecoder(scan, reader, eobRun);
    let mcus = 0;
    const restartIfDue = () => {
      if (restartInterval > 0 && mcus > 0 && mcus % restartInterval === 0) {
        reader.restart();
        previousDc.fill(0);
        eobRun.left = 0;
      }
      mcus++;
    };
    if (scan.components.length === 1) {
      // Non-interleaved: the component's own blocks, each its own MCU.
      const { index } = scan.components[0]!;
      const f = factors[index]!;
      const across = Math.ceil(Math.ceil((this.frame.width * f.h) / hMax) / 8);
      const down = Math.ceil(Math.ceil((this.frame.height * f.v) / vMax) / 8);
      for (let by = 0; by < down; by++) {
        for (let bx = 0; bx < across; bx++) {
          restartIfDue();
          decode(0, this.#blocks[index]!, (by * this.#blocksAcross[index]! + bx) * 64, previousDc);
        }
      }
      return;
    }
    for (let my = 0; my < mcusDown; my++) {
      for (let mx = 0; mx < mcusAcross; mx++) {
        restartIfDue();
        scan.components.forEach(({ index }, s) => {
          const { h, v } = factors[index]!;
          for (let by = 0; by < v; by++) {
            for (let bx = 0; bx < h; bx++) decode(s, this.#blocks[index]!, ((my * v + by) * this.#blocksAcross[index]! + mx * h + bx) * 64, previousDc);
          }
        });
      }
    }
  }

  /** The picture, dequantized with `quant` (each component's table, as stored), to `sink`. */
  output(quant: Int32Array[], colour: Colour, sink: RowSink): void {
    const { factors, mcusAcross, mcusDown } = this.layout;
    const tables = this.frame.components.map((c) => {
      const table = quant[c.quantTable];
      if (!table) throw new Error("a component names a quantization table it does not define");
      return naturalQuant(table);
    });
    const bands = bandsFor(this.frame, this.layout, colour, sink);
    const block = new Float64Array(64);
    for (let my = 0; my < mcusDown; my++) {
      factors.forEach(({ h, v }, c) => {
        const coefficients = this.#blocks[c]!;
        const q = tables[c]!;
        for (let by = 0; by < v; by++) {
          for (let bx = 0; bx < mcusAcross * h; bx++) {
            const at = ((my * v + by) * this.#blocksAcross[c]! + bx) * 64;
            for (let i = 0; i < 64; i++) block[i] = coefficients[at + i]! * q[i]!;
            inverseDct(block, bands.samples[c]!, by * 8 * bands.strides[c]! + bx * 8, bands.strides[c]!);
          }
        }
      });
      bands.emit(my);
    }
  }
}

type BlockDecode = (scanComponent: number, blocks: Int16Array, at: number, previousDc: number[]) => void;

/** The decoding of one block for the kind of scan: sequential, or a progressive DC or AC scan,
 * first or refining (after libjpeg's jdphuff.c). */
function blockDecoder(scan: ScanHeader, reader: BitReader, eobRun: { left: number }): BlockDecode {
  const { start, end, high, low } = scan;
  const table = (s: number, kind: "dc" | "ac") => {
    const found = scan.components[s]![kind];
    if (!found) throw new Error("its scan names a Huffman table it does not define");
    return found;
  };
  const dcFirst: BlockDecode = (s, blocks, at, previousDc) => {
    const size = reader.decode(table(s, "dc"));
    previousDc[s]! += size === 0 ? 0 : extend(reader.bits(size), size);
    blocks[at] = previousDc[s]! * (1 << low);
  };
  if (start === 0 && end === 63 && high === 0 && low === 0) {
    // Sequential: the whole block at once.
    return (s, blocks, at, previousDc) => {
      dcFirst(s, blocks, at, previousDc);
      acFirst(reader, table(s, "ac"), blocks, at, 1, 63, 0, eobRun);
    };
  }
  if (start === 0) {
    if (high === 0) return dcFirst;
    return (_s, blocks, at) => {
      if (reader.bits(1)) blocks[at]! |= 1 << low;
    };
  }
  if (high === 0) return (s, blocks, at) => acFirst(reader, table(s, "ac"), blocks, at, start, end, low, eobRun);
  return (s, blocks, at) => acRefine(reader, table(s, "ac"), blocks, at, start, end, low, eobRun);
}

function acFirst(reader: BitReader, table: HuffmanTable, blocks: Int16Array, at: number, start: number, end: number, low: number, eobRun: { left: number }): void {
  if (eobRun.left > 0) {
    eobRun.left--;
    return;
  }
  for (let k = start; k <= end; ) {
    const symbol = reader.decode(table);
    const size = symbol & 15;
    const run = symbol >> 4;
    if (size === 0) {
      if (run < 15) {
        // End of band, for this block and `(1 << run) - 1 + bits` more.
        eobRun.left = (1 << run) - 1 + (run > 0 ? reader.bits(run) : 0);
        return;
      }
      k += 16;
      continue;
    }
    k += run;
    if (k > 63) return;
    blocks[at + ZIGZAG[k]!] = extend(reader.bits(size), size) * (1 << low);
    k++;
  }
}

/** A later pass over AC coefficients: one more bit of each already nonzero, and the coefficients
 * that become nonzero at this bit. */
function acRefine(reader: BitReader, table: HuffmanTable, blocks: Int16Array, at: number, start: number, end: number, low: number, eobRun: { left: number }): void {
  const plus = 1 << low;
  const minus = -1 << low;
  const correct = (z: number) => {
    if (reader.bits(1) && (blocks[z]! & plus) === 0) blocks[z]! += blocks[z]! >= 0 ? plus : minus;
  };
  let k = start;
  if (eobRun.left === 0) {
    for (; k <= end; k++) {
      const symbol = reader.decode(table);
      let run = symbol >> 4;
      let value = 0;
      if ((symbol & 15) !== 0) value = reader.bits(1) ? plus : minus;
      else if (run !== 15) {
        eobRun.left = (1 << run) + (run > 0 ? reader.bits(run) : 0);
        break;
      }
      // Skip `run` zero coefficients, correcting the nonzero ones passed, to the one to set.
      for (; k <= end; k++) {
        const z = at + ZIGZAG[k]!;
        if (blocks[z] !== 0) correct(z);
        else if (--run < 0) break;
      }
      if (value !== 0 && k <= end) blocks[at + ZIGZAG[k]!] = value;
    }
  }
  if (eobRun.left > 0) {
    for (; k <= end; k++) {
      const z = at + ZIGZAG[k]!;
      if (blocks[z] !== 0) correct(z);
    }
    eobRun.left--;
  }
}
