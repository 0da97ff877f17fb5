// Shrinking an image until the model API takes it: decoded, scaled down by area averaging, and
// encoded again. A JPEG stays JPEG, a WebP WebP (each falling back to JPEG when still too large),
// and a PNG or a GIF's first frame becomes PNG (JPEG once PNG is too large, unless transparent), as
// Claude Code sends them. Pure: it takes seconds for a photo of tens of megapixels, so the runner
// calls it in a worker thread (image-shrink-worker.ts), never on its event loop.
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { decodeImage, type ImageType, type Raster } from "./image-decode.ts";
import { jpegOrientation, orient, swapsSides } from "./jpeg-orientation.ts";
import { encodeWebpImage } from "./webp-codec.ts";

export type ShrinkType = ImageType;

export type ShrinkLimits = {
  /** The longest side the result may have, in pixels. */
  maxSide: number;
  /** The most bytes the encoded result may have. */
  maxBytes: number;
};

export type Shrunk =
  | { ok: true; bytes: Uint8Array; mediaType: ShrinkType; from: Dimensions; to: Dimensions }
  | { ok: false; reason: string };

export type Dimensions = { width: number; height: number };

/** A side is not shrunk below this to meet the byte limit: the model could make out little. */
const MIN_SIDE = 200;
const JPEG_QUALITIES = [85, 70, 55];
/** libwebp's quality for a shrunk WebP, the one Claude Code's encoder uses by default. */
const WEBP_QUALITY = 80;

const TYPE_NAMES: Record<ShrinkType, string> = { "image/png": "a PNG", "image/jpeg": "a JPEG", "image/gif": "a GIF", "image/webp": "a WebP" };

export async function shrinkImage(bytes: Uint8Array, type: ShrinkType, limits: ShrinkLimits): Promise<Shrunk> {
  let source: Raster;
  try {
    source = await decodeImage(bytes, type);
  } catch (error) {
    return { ok: false, reason: `it cannot be decoded as ${TYPE_NAMES[type]} image (${error instanceof Error ? error.message : String(error)})` };
  }
  // A JPEG stored sideways is turned as its EXIF says (after scaling, on fewer pixels): the result
  // carries no EXIF. Sizes are told as the picture is shown.
  const orientation = type === "image/jpeg" ? jpegOrientation(bytes) : 1;
  const shown = (size: Dimensions): Dimensions => (swapsSides(orientation) ? { width: size.height, height: size.width } : size);
  const from = { width: source.width, height: source.height };
  const alpha = type !== "image/jpeg" && hasTransparency(source.data);
  let size = fitWithin(from, limits.maxSide);
  for (;;) {
    const scaled = orient(size.width === from.width && size.height === from.height ? source : downscale(source, size), orientation);
    for (const candidate of encodings(scaled, type, alpha)) {
      const encoded = await candidate();
      if (encoded.bytes.length <= limits.maxBytes) return { ok: true, bytes: encoded.bytes, mediaType: encoded.mediaType, from: shown(from), to: shown(size) };
    }
    if (Math.max(size.width, size.height) <= MIN_SIDE) return { ok: false, reason: `even at ${shown(size).width}×${shown(size).height} pixels it takes more than ${limits.maxBytes} bytes` };
    size = fitWithin(size, Math.max(MIN_SIDE, Math.floor(Math.max(size.width, size.height) * 0.75)));
  }
}

/** The size of the same shape whose longer side is at most `maxSide` (never larger than it was). */
export function fitWithin({ width, height }: Dimensions, maxSide: number): Dimensions {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  if (scale === 1) return { width, height };
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

/** The encodings to try, best first: a transparent image stays PNG (or WebP; JPEG would lose its
 * transparency), other PNGs and GIFs (screenshots, diagrams) are PNG while that fits, and photos
 * are JPEG. */
function encodings(image: Raster, type: ShrinkType, alpha: boolean): (() => Promise<{ bytes: Uint8Array; mediaType: ShrinkType }>)[] {
  const asPng = async () => ({ bytes: encodePng(image, alpha), mediaType: "image/png" as const });
  const asJpeg = (quality: number) => async () => ({ bytes: jpeg.encode({ width: image.width, height: image.height, data: image.data }, quality).data, mediaType: "image/jpeg" as const });
  const asWebp = async () => ({ bytes: await encodeWebpImage(image, WEBP_QUALITY), mediaType: "image/webp" as const });
  switch (type) {
    case "image/jpeg":
      return JPEG_QUALITIES.map(asJpeg);
    case "image/webp":
      return alpha ? [asWebp, asPng] : [asWebp, ...JPEG_QUALITIES.map(asJpeg)];
    default:
      return alpha ? [asPng] : [asPng, ...JPEG_QUALITIES.map(asJpeg)];
  }
}

function encodePng(image: Raster, alpha: boolean): Uint8Array {
  const png = new PNG({ width: image.width, height: image.height });
  png.data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  return PNG.sync.write(png, { colorType: alpha ? 6 : 2, inputHasAlpha: true, deflateLevel: 9 });
}

function hasTransparency(rgba: Uint8Array): boolean {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return true;
  return false;
}

/** Area averaging (a box filter): each target pixel is the mean of the source area it covers,
 * partly covered source pixels weighed by how much of them it covers. Colours are weighed by
 * their alpha, so fully transparent pixels (whose colour is arbitrary) do not bleed into their
 * neighbours. One target row is accumulated at a time: memory beyond the two images stays small. */
export function downscale(source: Raster, to: Dimensions): Raster {
  const { width: sw, height: sh, data: src } = source;
  const { width: dw, height: dh } = to;
  const columns = spans(sw, dw);
  const rows = spans(sh, dh);
  const out = new Uint8Array(dw * dh * 4);
  const sum = new Float64Array(dw * 4);
  const line = new Float64Array(dw * 4);
  for (let y = 0; y < dh; y++) {
    sum.fill(0);
    const row = rows[y]!;
    for (let k = 0; k < row.weights.length; k++) {
      const sy = row.first + k;
      const wy = row.weights[k]!;
      // The source row resampled across, into `line`.
      line.fill(0);
      const base = sy * sw * 4;
      for (let x = 0; x < dw; x++) {
        const column = columns[x]!;
        let r = 0, g = 0, b = 0, a = 0;
        for (let j = 0; j < column.weights.length; j++) {
          const at = base + (column.first + j) * 4;
          const w = column.weights[j]! * src[at + 3]!;
          r += src[at]! * w;
          g += src[at + 1]! * w;
          b += src[at + 2]! * w;
          a += column.weights[j]! * src[at + 3]!;
        }
        const o = x * 4;
        line[o] = r;
        line[o + 1] = g;
        line[o + 2] = b;
        line[o + 3] = a;
      }
      for (let i = 0; i < line.length; i++) sum[i]! += line[i]! * wy;
    }
    const area = row.total;
    for (let x = 0; x < dw; x++) {
      const o = x * 4;
      const weight = sum[o + 3]!; // Alpha summed over the area: the colours' divisor.
      const target = (y * dw + x) * 4;
      if (weight > 0) {
        out[target] = clamp(sum[o]! / weight);
        out[target + 1] = clamp(sum[o + 1]! / weight);
        out[target + 2] = clamp(sum[o + 2]! / weight);
      }
      out[target + 3] = clamp(weight / (area * columns[x]!.total));
    }
  }
  return { width: dw, height: dh, data: out };
}

type Span = { first: number; weights: number[]; total: number };

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
