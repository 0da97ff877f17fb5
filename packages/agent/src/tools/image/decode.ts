// Decoding an image the model API takes (PNG, JPEG, GIF, WebP) into RGBA pixels, to be shrunk.
import { GifReader } from "omggif";
import { PNG } from "pngjs";
import { type Dimensions, downscale, fitWithin, fittingSink } from "./area-scaler.ts";
import { MAX_DECODED_PIXELS, type ImageType } from "./size.ts";
import { decodeJpegRows } from "./jpeg-decode.ts";
import { decodePngRows } from "./png-decode.ts";
import { readWebpAnimation, type WebpAnimation } from "./webp-animation.ts";
import { decodeWebpImage } from "./webp-codec.ts";

export type Raster = { width: number; height: number; data: Uint8Array };

/** The image's pixels, scaled down to fit within `maxSide` (`from`: its size as stored); of a GIF
 * or an animated WebP, its first frame, as a browser shows it before it plays (`frames`: how many
 * the animation has: an animated WebP's always, a GIF's when it has more than one). Throws an
 * Error saying what is wrong with the bytes. */
export async function decodeImage(bytes: Uint8Array, type: ImageType, maxSide: number): Promise<{ image: Raster; from: Dimensions; frames?: number }> {
  // Decoders that hand over rows as they go; the JPEG one refuses a JPEG of a kind it does not
  // decode, the PNG one leaves an interlaced PNG to pngjs.
  let from: Dimensions | undefined;
  const sinkFor = (size: Dimensions) => {
    refuseTooLarge(size);
    from = { width: size.width, height: size.height };
    return fittingSink(from, maxSide);
  };
  if (type === "image/jpeg") return { image: decodeJpegRows(bytes, sinkFor).result(), from: from! };
  const streamed = type === "image/png" && (await decodePngRows(bytes, sinkFor));
  if (streamed) return { image: streamed.result(), from: from! };
  const animation = type === "image/webp" ? readWebpAnimation(bytes) : undefined;
  if (animation) {
    const first = await firstWebpFrame(animation);
    return { image: downscale(first, fitWithin(first, maxSide)), from: animation.canvas, frames: animation.frames };
  }
  if (type === "image/gif") {
    const { first, frames } = firstGifFrame(bytes);
    return { image: downscale(first, fitWithin(first, maxSide)), from: { width: first.width, height: first.height }, ...(frames > 1 && { frames }) };
  }
  const whole = await decodeWhole(bytes, type);
  return { image: downscale(whole, fitWithin(whole, maxSide)), from: { width: whole.width, height: whole.height } };
}

async function decodeWhole(bytes: Uint8Array, type: Exclude<ImageType, "image/jpeg" | "image/gif">): Promise<Raster> {
  switch (type) {
    case "image/png": {
      const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return { width: png.width, height: png.height, data: png.data };
    }
    case "image/webp":
      return decodeWebpImage(bytes);
  }
}

/** Throws for an image of more pixels than are decoded here, before they are. */
function refuseTooLarge({ width, height }: Dimensions): void {
  if (width * height > MAX_DECODED_PIXELS) throw new Error(`it is ${width}×${height} pixels`);
}

/** The first frame on the GIF's screen, and how many frames the GIF has. */
function firstGifFrame(bytes: Uint8Array): { first: Raster; frames: number } {
  const reader = new GifReader(bytes);
  if (reader.numFrames() === 0) throw new Error("it has no frame");
  refuseTooLarge(reader);
  // Where the frame does not cover the screen, or is transparent, the screen is transparent.
  const data = new Uint8Array(reader.width * reader.height * 4);
  reader.decodeAndBlitFrameRGBA(0, data);
  return { first: { width: reader.width, height: reader.height, data }, frames: reader.numFrames() };
}

/** The first frame on the canvas, transparent where the frame does not cover it. libwebp's simple
 * decoder, which takes still images only, decodes the frame's image. */
async function firstWebpFrame({ canvas, first }: WebpAnimation): Promise<Raster> {
  refuseTooLarge(canvas);
  const frame = await decodeWebpImage(first.still);
  if (frame.width !== first.width || frame.height !== first.height) {
    throw new Error(`its frame 1 holds an image of ${frame.width}×${frame.height} pixels, not the ${first.width}×${first.height} its frame header gives`);
  }
  if (frame.width === canvas.width && frame.height === canvas.height) return frame;
  const data = new Uint8Array(canvas.width * canvas.height * 4);
  const row = frame.width * 4;
  for (let y = 0; y < frame.height; y++) data.set(frame.data.subarray(y * row, (y + 1) * row), ((first.y + y) * canvas.width + first.x) * 4);
  return { width: canvas.width, height: canvas.height, data };
}
