// Images for the model: Read returns PNG, JPEG, GIF and WebP files as image content blocks.
import fs from "node:fs/promises";
import path from "node:path";
import type { ToolImageBlock, ToolOutput } from "../types.ts";
import { imageSize, MAX_IMAGE_SIDE } from "./image-size.ts";
import { errorText, formatBytes } from "./paths.ts";

type ImageType = ToolImageBlock["source"]["media_type"];

export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);

export function isImagePath(file: string): boolean {
  return IMAGE_EXTENSIONS.has(path.extname(file).toLowerCase());
}

/** The image type from the file's first bytes; the extension may lie, and the model API rejects
 * an image whose declared type does not match its content. */
export function sniffImageType(bytes: Buffer): ImageType | undefined {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(4) === 0x0d0a1a0a) return "image/png";
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.toString("latin1", 0, 6))) return "image/gif";
  if (bytes.length >= 12 && bytes.toString("latin1", 0, 4) === "RIFF" && bytes.toString("latin1", 8, 12) === "WEBP") return "image/webp";
  return undefined;
}

export async function readImage(file: string, shown: string, size: number, maxBytes: number): Promise<ToolOutput> {
  if (size > maxBytes) {
    return {
      content: `${shown} is too large to show as an image (${formatBytes(size)}; the limit is ${formatBytes(maxBytes)}). Make a smaller copy, for example with ImageMagick through Bash: convert "${shown}" -resize 50% smaller.png, and Read that.`,
      isError: true,
    };
  }
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (error) {
    return { content: `Cannot read ${shown}: ${errorText(error)}`, isError: true };
  }
  const mediaType = sniffImageType(bytes);
  if (!mediaType) return { content: `${shown} has an image file extension, but its content is not a PNG, JPEG, GIF or WebP image.`, isError: true };
  const dimensions = imageSize(bytes, mediaType);
  if (dimensions && (dimensions.width > MAX_IMAGE_SIDE || dimensions.height > MAX_IMAGE_SIDE)) {
    return {
      content: `${shown} is ${dimensions.width}×${dimensions.height} pixels; the model takes images of at most ${MAX_IMAGE_SIDE} pixels a side. Make a smaller copy, for example with ImageMagick through Bash: convert "${shown}" -resize ${MAX_IMAGE_SIDE}x${MAX_IMAGE_SIDE} smaller.png, and Read that.`,
      isError: true,
    };
  }
  return {
    content: `Read image ${shown} (${mediaType}, ${formatBytes(bytes.length)}).`,
    blocks: [{ type: "image", source: { type: "base64", media_type: mediaType, data: bytes.toString("base64") } }],
  };
}
