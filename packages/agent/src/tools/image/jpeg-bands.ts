// How a JPEG frame's components are laid out in MCUs, and the band of samples that one MCU row
// decodes into, which is coloured and handed over row by row.
import type { Dimensions, RowSink } from "./area-scaler.ts";
import type { Colour } from "./jpeg-colour.ts";

export type Component = { id: number; h: number; v: number; quantTable: number };
export type Frame = Dimensions & { components: Component[]; progressive: boolean };

export type Layout = {
  /** Each component's sampling factors; a lone component's MCU is one block, whatever they say. */
  factors: { h: number; v: number }[];
  hMax: number;
  vMax: number;
  mcusAcross: number;
  mcusDown: number;
};

export function layoutOf(frame: Frame): Layout {
  const single = frame.components.length === 1;
  const factors = frame.components.map((c) => (single ? { h: 1, v: 1 } : { h: c.h, v: c.v }));
  const hMax = Math.max(...factors.map((f) => f.h));
  const vMax = Math.max(...factors.map((f) => f.v));
  return { factors, hMax, vMax, mcusAcross: Math.ceil(frame.width / (8 * hMax)), mcusDown: Math.ceil(frame.height / (8 * vMax)) };
}

/** One MCU row's samples of each component (`stride` bytes a line, 8·v lines), written block by
 * block by the caller, then `emit` colours its pixel rows and hands them to the sink. */
export type Bands = { samples: Uint8Array[]; strides: number[]; emit(mcuRow: number): void };

export function bandsFor(frame: Frame, layout: Layout, colour: Colour, sink: RowSink): Bands {
  const { width, height } = frame;
  const { factors, hMax, vMax, mcusAcross } = layout;
  const strides = factors.map((f) => mcusAcross * f.h * 8);
  const samples = factors.map((f, c) => new Uint8Array(strides[c]! * f.v * 8));
  const columns = factors.map((f) => Int32Array.from({ length: width }, (_, x) => Math.floor((x * f.h) / hMax)));
  const pixels = new Uint8ClampedArray(width * 4);
  const row = new Uint8Array(pixels.buffer);
  const values = new Array<number>(factors.length).fill(0);
  return {
    samples,
    strides,
    emit(mcuRow) {
      const rows = Math.min(8 * vMax, height - mcuRow * 8 * vMax);
      for (let ly = 0; ly < rows; ly++) {
        // Nearest sample of a subsampled component: the picture is being scaled down anyway.
        const lines = factors.map((f, c) => Math.floor((ly * f.v) / vMax) * strides[c]!);
        for (let x = 0; x < width; x++) {
          for (let c = 0; c < values.length; c++) values[c] = samples[c]![lines[c]! + columns[c]![x]!]!;
          colour(values, pixels, x * 4);
        }
        sink.push(row);
      }
    },
  };
}
