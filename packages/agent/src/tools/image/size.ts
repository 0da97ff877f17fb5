// Width and height of a PNG, JPEG, GIF or WebP image, read from its header: the model API refuses
// an image larger than it takes, and such an image, once in a conversation, makes every later
// request of it fail too; so one too large is shrunk first, or refused.
import type { ToolImageBlock } from "../../types.ts";

/** The image types the model API takes. */
export type ImageType = ToolImageBlock["source"]["media_type"];

/** The image type from the file's first bytes; the extension may lie, and the model API rejects
 * an image whose declared type does not match its content. */
export function sniffImageType(bytes: Buffer): ImageType | undefined {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(4) === 0x0d0a1a0a) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.toString("latin1", 0, 6))) return "image/gif";
  if (bytes.length >= 12 && bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** Decoding takes four bytes a pixel and more: larger images are refused rather than decoded. */
export const MAX_DECODED_PIXELS = 64 * 1024 * 1024;

export type ImageSize = { width: number; height: number };

/** The image's size, or undefined when its header cannot be read. */
export function imageSize(bytes: Buffer, type: ImageType): ImageSize | undefined {
  try {
    switch (type) {
      case "image/png":
        // The IHDR chunk comes first: width and height after its length and type.
        return bytes.length >= 24 ? { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) } : undefined;
      case "image/gif":
        return bytes.length >= 10 ? { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) } : undefined;
      case "image/jpeg":
        return jpegSize(bytes);
      case "image/webp":
        return webpSize(bytes);
    }
  } catch {
    return undefined; // A header cut short.
  }
  return undefined;
}

/** Whether a JPEG marker starts a frame: SOF0–SOF15 but for DHT, JPG and DAC. */
export function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
}

/** From the first start-of-frame marker. */
function jpegSize(bytes: Buffer): ImageSize | undefined {
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at++; // Fill byte.
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    if (isStartOfFrame(marker)) {
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return undefined;
}

function webpSize(bytes: Buffer): ImageSize | undefined {
  const chunk = bytes.toString("latin1", 12, 16);
  if (chunk === "VP8X" && bytes.length >= 30) return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
  if (chunk === "VP8L" && bytes.length >= 25) {
    const bits = bytes.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
  }
  if (chunk === "VP8 " && bytes.length >= 30) return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  return undefined;
}
