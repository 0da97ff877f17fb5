// The coefficients of a JPEG's blocks as its scans are read, turned into pixels one MCU row at a
// time. A progressive JPEG, or a baseline one in several scans, keeps every block's coefficients
// (two bytes each) until its last scan; a baseline scan holding every component (what cameras and
// phones write) keeps one MCU row's, each row coloured and handed over before the next is read.
import type { RowSink } from "./area-scaler.ts";
import { bandsFor, type Frame, type Layout, layoutOf } from "./jpeg-bands.ts";
import { type BitReader, extend, type HuffmanTable, inverseDct, naturalQuant, ZIGZAG } from "./jpeg-blocks.ts";
import type { Colour } from "./jpeg-colour.ts";

/** A scan: which frame components it holds, with their tables, and which coefficients (spectral
 * selection `start`–`end`) to which bits (successive approximation: `high`, `low`). */
export type ScanHeader = { components: { index: number; dc?: HuffmanTable; ac?: HuffmanTable }[]; start: number; end: number; high: number; low: number };

/** A baseline scan holding every component, from `reader`, to `sink` an MCU row at a time,
 * dequantized with `quant` (each component's table, as stored): one row's coefficients are held. */
export function decodeScanRows(frame: Frame, reader: BitReader, scan: ScanHeader, restartInterval: number, quant: Int32Array[], colour: Colour, sink: RowSink): void {
  const row = new StoredCoefficients(frame, false);
  const output = row.rowOutput(quant, colour, sink);
  row.readScan(reader, scan, restartInterval, (my) => {
    output(my);
    row.clear();
  });
}

export class StoredCoefficients {
  readonly frame: Frame;
  readonly layout: Layout;
  /** Per component, its blocks row by row (padded to whole MCUs), 64 coefficients each in natural
   * order: of every MCU row, or of the one being read. */
  readonly #blocks: Int16Array[];
  readonly #blocksAcross: number[];
  readonly #whole: boolean;

  /** `whole`: every MCU row is kept, else only the one being read (readScan's `rowDone` must then
   * use it and clear it before the next). */
  constructor(frame: Frame, whole = true) {
    this.frame = frame;
    this.layout = layoutOf(frame);
    this.#whole = whole;
    const { factors, mcusAcross, mcusDown } = this.layout;
    this.#blocksAcross = factors.map((f) => mcusAcross * f.h);
    this.#blocks = factors.map((f, c) => new Int16Array(this.#blocksAcross[c]! * (whole ? mcusDown : 1) * f.v * 64));
  }

  /** Decodes one scan's data from `reader`; `rowDone` is called after each MCU row of a scan
   * holding several components, or of a one-component frame. */
  readScan(reader: BitReader, scan: ScanHeader, restartInterval: number, rowDone?: (mcuRow: number) => void): void {
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
    if (scan.components.length === 1 && this.frame.components.length > 1) {
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
    // Interleaved (a lone component's MCU being one block, its own blocks in order too).
    for (let my = 0; my < mcusDown; my++) {
      const row = this.#whole ? my : 0;
      for (let mx = 0; mx < mcusAcross; mx++) {
        restartIfDue();
        for (let s = 0; s < scan.components.length; s++) {
          const { index } = scan.components[s]!;
          const { h, v } = factors[index]!;
          for (let by = 0; by < v; by++) {
            for (let bx = 0; bx < h; bx++) decode(s, this.#blocks[index]!, ((row * v + by) * this.#blocksAcross[index]! + mx * h + bx) * 64, previousDc);
          }
        }
      }
      rowDone?.(my);
    }
  }

  /** Zeroes the coefficients held, for the next MCU row (a block's zero ones are not written). */
  clear(): void {
    for (const blocks of this.#blocks) blocks.fill(0);
  }

  /** The picture, dequantized with `quant` (each component's table, as stored), to `sink`. */
  output(quant: Int32Array[], colour: Colour, sink: RowSink): void {
    const output = this.rowOutput(quant, colour, sink);
    for (let my = 0; my < this.layout.mcusDown; my++) output(my);
  }

  /** Hands MCU row `my` (held) to `sink`, rows in order from the first. */
  rowOutput(quant: Int32Array[], colour: Colour, sink: RowSink): (my: number) => void {
    const { factors, mcusAcross } = this.layout;
    const tables = this.frame.components.map((c) => {
      const table = quant[c.quantTable];
      if (!table) throw new Error("a component names a quantization table it does not define");
      return naturalQuant(table);
    });
    const bands = bandsFor(this.frame, this.layout, colour, sink);
    const block = new Float64Array(64);
    return (my) => {
      const row = this.#whole ? my : 0;
      for (let c = 0; c < factors.length; c++) {
        const { h, v } = factors[c]!;
        const coefficients = this.#blocks[c]!;
        const q = tables[c]!;
        for (let by = 0; by < v; by++) {
          for (let bx = 0; bx < mcusAcross * h; bx++) {
            const at = ((row * v + by) * this.#blocksAcross[c]! + bx) * 64;
            for (let i = 0; i < 64; i++) block[i] = coefficients[at + i]! * q[i]!;
            inverseDct(block, bands.samples[c]!, by * 8 * bands.strides[c]! + bx * 8, bands.strides[c]!);
          }
        }
      }
      bands.emit(my);
    };
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
