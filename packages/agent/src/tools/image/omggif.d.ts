// The parts of omggif (a GIF decoder and encoder) used here; the package ships no types.
declare module "omggif" {
  export type GifFrameInfo = { x: number; y: number; width: number; height: number; transparent_index: number | null; disposal: number; delay: number };
  export class GifReader {
    constructor(bytes: Uint8Array);
    readonly width: number;
    readonly height: number;
    numFrames(): number;
    frameInfo(frame: number): GifFrameInfo;
    /** Draws the frame onto `pixels` (RGBA of the whole logical screen), leaving its transparent pixels as they were. */
    decodeAndBlitFrameRGBA(frame: number, pixels: Uint8Array): void;
  }
  export class GifWriter {
    /** `palette`: colours as 0xRRGGBB, a power of two of them from 2 to 256. */
    constructor(buffer: Uint8Array, width: number, height: number, options?: { palette?: number[]; loop?: number; background?: number });
    addFrame(x: number, y: number, width: number, height: number, indexedPixels: Uint8Array | number[], options?: { palette?: number[]; delay?: number; disposal?: number; transparent?: number }): number;
    /** Writes the trailer; the length of the file written into the buffer. */
    end(): number;
  }
}
