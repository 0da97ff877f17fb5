// A JPEG's EXIF orientation: how a camera that stored the picture sideways (or mirrored) says to
// show it. A shrunk image is encoded again without EXIF, so its pixels are turned as the tag says
// first; otherwise a portrait phone photo would reach the model lying on its side.
import type { Raster } from "./decode.ts";

/** The orientation (1–8) in the EXIF block of a JPEG's APP1 segment; 1 (as stored) when there is
 * none or it cannot be read. Reads only the segments before the image data. */
export function jpegOrientation(bytes: Uint8Array): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 4 || view.getUint16(0) !== 0xffd8) return 1;
  let at = 2;
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]!;
    // Start of scan or end of image: no metadata after this point.
    if (marker === 0xda || marker === 0xd9) return 1;
    const length = view.getUint16(at + 2);
    if (length < 2) return 1;
    const start = at + 4;
    if (marker === 0xe1 && start + length - 2 <= bytes.length && isExif(bytes, start)) return exifOrientation(view, start + 6, start + length - 2);
    at = start + length - 2;
  }
  return 1;
}

function isExif(bytes: Uint8Array, at: number): boolean {
  return bytes[at] === 0x45 && bytes[at + 1] === 0x78 && bytes[at + 2] === 0x69 && bytes[at + 3] === 0x66 && bytes[at + 4] === 0 && bytes[at + 5] === 0;
}

/** The orientation tag (0x0112) of IFD0 of the TIFF structure at `tiff`, which ends at `end`. */
function exifOrientation(view: DataView, tiff: number, end: number): number {
  if (tiff + 8 > end) return 1;
  const order = view.getUint16(tiff);
  if (order !== 0x4949 && order !== 0x4d4d) return 1;
  const little = order === 0x4949;
  const ifd = tiff + view.getUint32(tiff + 4, little);
  if (ifd + 2 > end) return 1;
  const count = view.getUint16(ifd, little);
  for (let i = 0; i < count; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > end) return 1;
    if (view.getUint16(entry, little) !== 0x0112) continue;
    const value = view.getUint16(entry + 8, little);
    return value >= 1 && value <= 8 ? value : 1;
  }
  return 1;
}

/** Whether the orientation swaps width and height (the quarter turns, 5–8). */
export function swapsSides(orientation: number): boolean {
  return orientation >= 5 && orientation <= 8;
}

/** The RGBA image turned and mirrored as EXIF orientation `orientation` says to show it. */
export function orient(image: Raster, orientation: number): Raster {
  if (orientation <= 1 || orientation > 8) return image;
  const { width: w, height: h, data: src } = image;
  const swap = swapsSides(orientation);
  const dw = swap ? h : w;
  const dh = swap ? w : h;
  const out = new Uint8Array(dw * dh * 4);
  for (let y = 0; y < dh; y++) {
    for (let x = 0; x < dw; x++) {
      const [sx, sy] = sourceOf(orientation, x, y, w, h);
      const from = (sy * w + sx) * 4;
      const to = (y * dw + x) * 4;
      out[to] = src[from]!;
      out[to + 1] = src[from + 1]!;
      out[to + 2] = src[from + 2]!;
      out[to + 3] = src[from + 3]!;
    }
  }
  return { width: dw, height: dh, data: out };
}

/** The stored pixel shown at (x, y), for a stored image of `w` × `h`. */
function sourceOf(orientation: number, x: number, y: number, w: number, h: number): [number, number] {
  switch (orientation) {
    case 2: return [w - 1 - x, y]; // mirrored left to right
    case 3: return [w - 1 - x, h - 1 - y]; // upside down
    case 4: return [x, h - 1 - y]; // mirrored top to bottom
    case 5: return [y, x]; // transposed
    case 6: return [y, h - 1 - x]; // to be turned a quarter clockwise
    case 7: return [w - 1 - y, h - 1 - x]; // transversed
    case 8: return [w - 1 - y, x]; // to be turned a quarter anticlockwise
    default: return [x, y];
  }
}
