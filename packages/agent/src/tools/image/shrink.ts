// Shrinking an image until the model API takes it: decoded, scaled down by area averaging, and
// encoded again. A JPEG stays JPEG, a WebP (an animated one's first frame) WebP, each falling back
// to JPEG when still too large, and a PNG or a GIF's first frame becomes PNG (JPEG once PNG is too
// large, unless transparent), as Claude Code sends them. Pure: it takes seconds for a photo of tens
// of megapixels, so the runner calls it in a worker thread (shrink-worker.ts), never on its
// event loop.
import jpeg from "jpeg-js";
import { PNG } from "pngjs";
import { type Dimensions, downscale, fitWithin } from "./area-scaler.ts";
import { decodeImage, type Raster } from "./decode.ts";
import type { ImageType } from "./size.ts";
import { jpegOrientation, orient, swapsSides } from "./jpeg-orientation.ts";
import { encodeWebpImage } from "./webp-codec.ts";

export type ShrinkLimits = {
  /** The longest side the result may have, in pixels. */
  maxSide: number;
  /** The most bytes the encoded result may have. */
  maxBytes: number;
};

export type Shrunk =
  | {
      ok: true;
      bytes: Uint8Array;
      mediaType: ImageType;
      from: Dimensions;
      to: Dimensions;
      /** Of an animation (a WebP's) whose first frame this is: how many frames it has. */
      frames?: number;
    }
  | { ok: false; reason: string };

/** A side is not shrunk below this to meet the byte limit: the model could make out little. */
const MIN_SIDE = 200;
const JPEG_QUALITIES = [85, 70, 55];
/** libwebp's quality for a shrunk WebP, the one Claude Code's encoder uses by default. */
const WEBP_QUALITY = 80;

const TYPE_NAMES: Record<ImageType, string> = { "image/png": "a PNG", "image/jpeg": "a JPEG", "image/gif": "a GIF", "image/webp": "a WebP" };

export async function shrinkImage(bytes: Uint8Array, type: ImageType, limits: ShrinkLimits): Promise<Shrunk> {
  let first: Raster;
  let from: Dimensions;
  let frames: number | undefined;
  try {
    // Decoded straight to the size the sides allow: the full-size pixels are not all held at once
    // where the decoder goes row by row, and are let go before encoding where it does not.
    ({ image: first, from, frames } = await decodeImage(bytes, type, limits.maxSide));
  } catch (error) {
    return { ok: false, reason: `it cannot be decoded as ${TYPE_NAMES[type]} image (${error instanceof Error ? error.message : String(error)})` };
  }
  // A JPEG stored sideways is turned as its EXIF says (after scaling, on fewer pixels): the result
  // carries no EXIF. Sizes are told as the picture is shown.
  const orientation = type === "image/jpeg" ? jpegOrientation(bytes) : 1;
  const shown = (size: Dimensions): Dimensions => (swapsSides(orientation) ? { width: size.height, height: size.width } : size);
  const alpha = type !== "image/jpeg" && hasTransparency(first.data);
  let scaled = first;
  for (;;) {
    const size = { width: scaled.width, height: scaled.height };
    for (const candidate of encodings(orient(scaled, orientation), type, alpha)) {
      const encoded = await candidate();
      if (encoded.bytes.length <= limits.maxBytes) return { ok: true, bytes: encoded.bytes, mediaType: encoded.mediaType, from: shown(from), to: shown(size), ...(frames && { frames }) };
    }
    if (Math.max(size.width, size.height) <= MIN_SIDE) return { ok: false, reason: `even at ${shown(size).width}×${shown(size).height} pixels it takes more than ${limits.maxBytes} bytes` };
    // Smaller sizes are scaled from the first one, the source being gone.
    scaled = downscale(first, fitWithin(size, Math.max(MIN_SIDE, Math.floor(Math.max(size.width, size.height) * 0.75))));
  }
}

/** The encodings to try, best first: a transparent image stays PNG (or WebP; JPEG would lose its
 * transparency), other PNGs and GIFs (screenshots, diagrams) are PNG while that fits, and photos
 * are JPEG. */
function encodings(image: Raster, type: ImageType, alpha: boolean): (() => Promise<{ bytes: Uint8Array; mediaType: ImageType }>)[] {
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
