// Scaling an RGBA image down by area averaging (a box filter), fed one source row at a time, so
// that a decoder can hand over each row as it makes it and the whole source is never held.
import type { Raster } from "./decode.ts";

export type Dimensions = { width: number; height: number };

type Span = { first: number; weights: number[]; total: number };

/** Each target pixel is the mean of the source area it covers, partly covered source pixels
 * weighed by how much of them it covers. Colours are weighed by their alpha, so fully transparent
 * pixels (whose colour is arbitrary) do not bleed into their neighbours. `to` is no larger than
 * `from` on either side; then each source row falls in at most two target rows, and only those
 * two are being summed at any time. */
export class AreaScaler {
  readonly #from: Dimensions;
  readonly #to: Dimensions;
  readonly #columns: Span[];
  readonly #rows: Span[];
  readonly #out: Uint8Array;
  readonly #line: Float64Array;
  #sums: [Float64Array, Float64Array];
  /** The next source row expected, and the first target row not yet complete. */
  #sourceRow = 0;
  #targetRow = 0;

  constructor(from: Dimensions, to: Dimensions) {
    if (to.width > from.width || to.height > from.height || to.width < 1 || to.height < 1) throw new Error(`cannot scale ${from.width}×${from.height} to ${to.width}×${to.height}`);
    this.#from = from;
    this.#to = to;
    this.#columns = spans(from.width, to.width);
    this.#rows = spans(from.height, to.height);
    this.#out = new Uint8Array(to.width * to.height * 4);
    this.#line = new Float64Array(to.width * 4);
    this.#sums = [new Float64Array(to.width * 4), new Float64Array(to.width * 4)];
  }

  /** The next source row, `from.width` RGBA pixels; rows past the last are ignored. */
  push(row: Uint8Array): void {
    const sy = this.#sourceRow++;
    if (sy >= this.#from.height) return;
    this.#resampleAcross(row);
    for (let k = 0; k < 2; k++) {
      const y = this.#targetRow + k;
      const span = this.#rows[y];
      if (!span || sy < span.first || sy >= span.first + span.weights.length) continue;
      const weight = span.weights[sy - span.first]!;
      const sum = this.#sums[k]!;
      for (let i = 0; i < sum.length; i++) sum[i]! += this.#line[i]! * weight;
    }
    const current = this.#rows[this.#targetRow];
    if (current && sy === current.first + current.weights.length - 1) this.#finishRow();
  }

  /** The scaled image; throws when fewer rows came than the source has. */
  result(): Raster {
    if (this.#sourceRow < this.#from.height) throw new Error(`the image data ends after ${this.#sourceRow} of ${this.#from.height} rows`);
    return { width: this.#to.width, height: this.#to.height, data: this.#out };
  }

  /** The source row resampled across, into #line (colours premultiplied by alpha). */
  #resampleAcross(row: Uint8Array): void {
    const line = this.#line;
    for (let x = 0; x < this.#to.width; x++) {
      const column = this.#columns[x]!;
      let r = 0, g = 0, b = 0, a = 0;
      for (let j = 0; j < column.weights.length; j++) {
        const at = (column.first + j) * 4;
        const wa = column.weights[j]! * row[at + 3]!;
        r += row[at]! * wa;
        g += row[at + 1]! * wa;
        b += row[at + 2]! * wa;
        a += wa;
      }
      const o = x * 4;
      line[o] = r;
      line[o + 1] = g;
      line[o + 2] = b;
      line[o + 3] = a;
    }
  }

  #finishRow(): void {
    const y = this.#targetRow++;
    const [sum, next] = this.#sums;
    const area = this.#rows[y]!.total;
    const out = this.#out;
    for (let x = 0; x < this.#to.width; x++) {
      const o = x * 4;
      const weight = sum[o + 3]!; // Alpha summed over the area: the colours' divisor.
      const target = (y * this.#to.width + x) * 4;
      if (weight > 0) {
        out[target] = clamp(sum[o]! / weight);
        out[target + 1] = clamp(sum[o + 1]! / weight);
        out[target + 2] = clamp(sum[o + 2]! / weight);
      }
      out[target + 3] = clamp(weight / (area * this.#columns[x]!.total));
    }
    sum.fill(0);
    this.#sums = [next, sum];
  }
}

/** `source` scaled down to `to` (see AreaScaler); `source` itself where it is of that size. */
export function downscale(source: Raster, to: Dimensions): Raster {
  if (to.width === source.width && to.height === source.height) return source;
  const scaler = new AreaScaler(source, to);
  const stride = source.width * 4;
  for (let y = 0; y < source.height; y++) scaler.push(source.data.subarray(y * stride, (y + 1) * stride));
  return scaler.result();
}

/** The size of the same shape whose longer side is at most `maxSide` (never larger than it was). */
export function fitWithin({ width, height }: Dimensions, maxSide: number): Dimensions {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  if (scale === 1) return { width, height };
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** For each of `to` target pixels along an axis of `from` source pixels: the first source pixel it
 * covers and how much of it and each following one. */
function spans(from: number, to: number): Span[] {
  const scale = from / to;
  const result: Span[] = [];
  for (let i = 0; i < to; i++) {
    const start = i * scale;
    const end = Math.min(from, (i + 1) * scale);
    const first = Math.floor(start);
    const weights: number[] = [];
    for (let s = first; s < end; s++) weights.push(Math.min(end, s + 1) - Math.max(start, s));
    result.push({ first, weights, total: end - start });
  }
  return result;
}

function clamp(value: number): number {
  return value <= 0 ? 0 : value >= 255 ? 255 : Math.round(value);
}

/** Where a decoder puts its rows, top to bottom. */
export type RowSink = { push(row: Uint8Array): void; result(): Raster };

/** A sink for the rows of an image of `from`, keeping it scaled to fit within `maxSide`: as it is
 * when it fits, pixel for pixel. */
export function fittingSink(from: Dimensions, maxSide: number): RowSink {
  const to = fitWithin(from, maxSide);
  if (to.width !== from.width || to.height !== from.height) return new AreaScaler(from, to);
  const data = new Uint8Array(from.width * from.height * 4);
  let rows = 0;
  return {
    push(row) {
      if (rows < from.height) data.set(row.subarray(0, from.width * 4), rows++ * from.width * 4);
    },
    result() {
      if (rows < from.height) throw new Error(`the image data ends after ${rows} of ${from.height} rows`);
      return { width: from.width, height: from.height, data };
    },
  };
}
