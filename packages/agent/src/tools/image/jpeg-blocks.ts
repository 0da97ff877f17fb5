// The entropy-coded data of a JPEG: the bit reader, Huffman tables, and turning one 8×8 block's
// coefficients back into samples. Used by jpeg-decode.ts and jpeg-stored.ts.

/** Zig-zag position → row-major position in a block. */
export const ZIGZAG = Uint8Array.from([
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30,
  37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
]);

/** A Huffman table as a lookup by the next 16 bits: (code length << 8) | symbol, 0 for no code. */
export type HuffmanTable = Uint16Array;

/** The table from a DHT segment's 16 counts of codes of each length and their symbols in order. */
export function huffmanTable(counts: Uint8Array, symbols: Uint8Array): HuffmanTable {
  const table = new Uint16Array(1 << 16);
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    for (let i = 0; i < counts[length - 1]!; i++) {
      if (k >= symbols.length) throw new Error("a Huffman table has fewer symbols than codes");
      const shift = 16 - length;
      table.fill((length << 8) | symbols[k++]!, code << shift, (code + 1) << shift);
      code++;
    }
    code <<= 1;
  }
  return table;
}

/** Reads the bits of a scan, skipping the zero byte stuffed after each 0xFF. At a marker it stops
 * and yields zero bits: data cut short decodes as flat grey rather than failing. */
export class BitReader {
  #data: Uint8Array;
  #at: number;
  #bits = 0;
  #count = 0;

  constructor(data: Uint8Array, at: number) {
    this.#data = data;
    this.#at = at;
  }

  #fill(): void {
    while (this.#count <= 24) {
      let byte = 0;
      if (this.#at < this.#data.length) {
        byte = this.#data[this.#at]!;
        if (byte !== 0xff) this.#at++;
        else if (this.#data[this.#at + 1] === 0) this.#at += 2;
        else byte = 0;
      }
      this.#bits = (this.#bits << 8) | byte;
      this.#count += 8;
    }
  }

  bits(n: number): number {
    if (n === 0) return 0;
    if (this.#count < n) this.#fill();
    this.#count -= n;
    return (this.#bits >>> this.#count) & ((1 << n) - 1);
  }

  decode(table: HuffmanTable): number {
    if (this.#count < 16) this.#fill();
    const entry = table[(this.#bits >>> (this.#count - 16)) & 0xffff]!;
    if (entry === 0) throw new Error("the image data has a code its Huffman tables do not define");
    this.#count -= entry >> 8;
    return entry & 0xff;
  }

  /** Where the bytes not yet read start: after a scan, its end (the padding bits let go). */
  get position(): number {
    return this.#at;
  }

  /** Past the restart marker that ends an interval: the bits left before it are padding. */
  restart(): void {
    this.#bits = 0;
    this.#count = 0;
    const data = this.#data;
    while (this.#at + 1 < data.length && !(data[this.#at] === 0xff && data[this.#at + 1]! >= 0xd0 && data[this.#at + 1]! <= 0xd7)) this.#at++;
    this.#at += 2;
  }
}

/** A value of `size` bits as the JPEG standard extends it to a signed one. */
export function extend(value: number, size: number): number {
  return value < 1 << (size - 1) ? value - (1 << size) + 1 : value;
}

/** The AAN inverse DCT's scale of each coefficient (row-major), folded into the quantization
 * table once so that the transform itself needs 5 multiplications a row. */
const AAN = Float64Array.from({ length: 8 }, (_, k) => (k === 0 ? 1 : Math.cos((k * Math.PI) / 16) * Math.SQRT2));

/** A quantization table (zig-zag order, as stored) in natural (row-major) order, for coefficients
 * kept in that order, with the AAN scale folded in, and the final division by 8. */
export function naturalQuant(quant: Int32Array): Float64Array {
  const natural = new Float64Array(64);
  for (let k = 0; k < 64; k++) {
    const at = ZIGZAG[k]!;
    natural[at] = (quant[k]! * AAN[at >> 3]! * AAN[at & 7]!) / 8;
  }
  return natural;
}

const work = new Float64Array(64);

/** The inverse DCT (Arai, Agui and Nakajima's factoring) of `block` (row-major coefficients
 * dequantized by naturalQuant), written as 8 rows of 8 samples into `out` at `at`, `stride` bytes a
 * row. A column of zero AC coefficients, most of them in a photo, is a constant. */
export function inverseDct(block: Float64Array, out: Uint8Array, at: number, stride: number): void {
  for (let c = 0; c < 8; c++) {
    if (block[8 + c] === 0 && block[16 + c] === 0 && block[24 + c] === 0 && block[32 + c] === 0 && block[40 + c] === 0 && block[48 + c] === 0 && block[56 + c] === 0) {
      const dc = block[c]!;
      for (let r = 0; r < 8; r++) work[r * 8 + c] = dc;
      continue;
    }
    transform(block, c, 8, work, c, 8);
  }
  for (let r = 0; r < 8; r++) {
    transform(work, r * 8, 1, rowOut, 0, 1);
    const line = at + r * stride;
    for (let x = 0; x < 8; x++) {
      const sample = Math.round(rowOut[x]! + 128);
      out[line + x] = sample < 0 ? 0 : sample > 255 ? 255 : sample;
    }
  }
}

const rowOut = new Float64Array(8);

/** One 8-point inverse transform: from `input` at `i` every `step`, to `output` at `o` every `outStep`. */
function transform(input: Float64Array, i: number, step: number, output: Float64Array, o: number, outStep: number): void {
  // Even part.
  let t0 = input[i]!;
  let t1 = input[i + 2 * step]!;
  let t2 = input[i + 4 * step]!;
  let t3 = input[i + 6 * step]!;
  let t10 = t0 + t2;
  let t11 = t0 - t2;
  let t13 = t1 + t3;
  let t12 = (t1 - t3) * 1.414213562 - t13;
  t0 = t10 + t13;
  t3 = t10 - t13;
  t1 = t11 + t12;
  t2 = t11 - t12;
  // Odd part.
  const t4i = input[i + step]!;
  const t5i = input[i + 3 * step]!;
  const t6i = input[i + 5 * step]!;
  const t7i = input[i + 7 * step]!;
  const z13 = t6i + t5i;
  const z10 = t6i - t5i;
  const z11 = t4i + t7i;
  const z12 = t4i - t7i;
  const t7 = z11 + z13;
  t11 = (z11 - z13) * 1.414213562;
  const z5 = (z10 + z12) * 1.847759065;
  t10 = 1.0823922 * z12 - z5;
  t12 = -2.61312593 * z10 + z5;
  const t6 = t12 - t7;
  const t5 = t11 - t6;
  const t4 = t10 + t5;
  output[o] = t0 + t7;
  output[o + 7 * outStep] = t0 - t7;
  output[o + outStep] = t1 + t6;
  output[o + 6 * outStep] = t1 - t6;
  output[o + 2 * outStep] = t2 + t5;
  output[o + 5 * outStep] = t2 - t5;
  output[o + 4 * outStep] = t3 + t4;
  output[o + 3 * outStep] = t3 - t4;
}
