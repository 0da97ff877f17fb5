// Decoding an image the model API takes (PNG, JPEG, GIF, WebP) into RGBA pixels, to be shrunk.
import { GifReader } from "omggif";
import { PNG } from "pngjs";
import { type Dimensions, downscale, fitWithin, fittingSink } from "./area-scaler.ts";
import { MAX_DECODED_PIXELS, type ImageType } from "./image-size.ts";
import { decodeJpegRows } from "./jpeg-decode.ts";
import { decodePngRows } from "./png-decode.ts";
import { decodeWebpImage } from "./webp-codec.ts";

export type Raster = { width: number; height: number; data: Uint8Array };

/** The image's pixels, scaled down to fit within `maxSide` (`from`: its size as stored); of a GIF,
 * its first frame, as a browser shows it before it plays. Throws an Error saying what is wrong with
 * the bytes. */
export async function decodeImage(bytes: Uint8Array, type: ImageType, maxSide: number): Promise<{ image: Raster; from: Dimensions }> {
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
  const whole = await decodeWhole(bytes, type);
  return { image: downscale(whole, fitWithin(whole, maxSide)), from: { width: whole.width, height: whole.height } };
}

async function decodeWhole(bytes: Uint8Array, type: Exclude<ImageType, "image/jpeg">): Promise<Raster> {
  switch (type) {
    case "image/png": {
      const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return { width: png.width, height: png.height, data: png.data };
    }
    case "image/gif":
      return firstGifFrame(bytes);
    case "image/webp":
      // libwebp's simple decoder takes still images only; its own error says just "Decoding error".
      if (isAnimatedWebp(bytes)) throw new Error("it is an animated WebP image, whose frames are not decoded here");
      return decodeWebpImage(bytes);
  }
}

/** Throws for an image of more pixels than are decoded here, before they are. */
function refuseTooLarge({ width, height }: Dimensions): void {
  if (width * height > MAX_DECODED_PIXELS) throw new Error(`it is ${width}×${height} pixels`);
}

function firstGifFrame(bytes: Uint8Array): Raster {
  const reader = new GifReader(bytes);
  if (reader.numFrames() === 0) throw new Error("it has no frame");
  refuseTooLarge(reader);
  // Where the frame does not cover the screen, or is transparent, the screen is transparent.
  const data = new Uint8Array(reader.width * reader.height * 4);
  reader.decodeAndBlitFrameRGBA(0, data);
  return { width: reader.width, height: reader.height, data };
}

/** Whether the VP8X header's animation flag is set. */
function isAnimatedWebp(bytes: Uint8Array): boolean {
  const chunk = String.fromCharCode(...bytes.subarray(12, 16));
  return chunk === "VP8X" && bytes.length > 20 && (bytes[20]! & 0x02) !== 0;
}
