// Images for the model: Read returns PNG, JPEG, GIF and WebP files as image content blocks.
import fs from "node:fs/promises";
import path from "node:path";
import type { ToolImageBlock, ToolOutput } from "../types.ts";
import { fitImage, resizeNote } from "./fit-image.ts";
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

/** Files larger than this are not read as images at all: even shrunk, such a file would take the
 * decoder long and most of a gigabyte. */
export const MAX_IMAGE_FILE_BYTES = 64 * 1024 * 1024;

/** The image for the model: as the file is when the API takes it so, shrunk (and the model told so)
 * when it is a PNG or JPEG too large for it, refused otherwise. */
export async function readImage(file: string, shown: string, size: number, maxBytes: number, signal?: AbortSignal): Promise<ToolOutput> {
  if (size > MAX_IMAGE_FILE_BYTES) {
    return {
      content: `${shown} is too large to show as an image (${formatBytes(size)}; files over ${formatBytes(MAX_IMAGE_FILE_BYTES)} are not read as images). Make a smaller copy, for example with ImageMagick through Bash: convert "${shown}" -resize 2000x2000 smaller.jpg, and Read that.`,
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
  const fitted = await fitImage(bytes, mediaType, shown, maxBytes, signal);
  if (!fitted.ok) return { content: fitted.message, isError: true };
  const sent = fitted.block.source;
  const content = `Read image ${shown} (${sent.media_type}, ${formatBytes(Buffer.byteLength(sent.data, "base64"))}).`;
  if (!fitted.resized) return { content, blocks: [fitted.block] };
  const note = resizeNote(shown, fitted.resized.from, fitted.resized.to);
  return { content: `${content} ${note}`, blocks: [fitted.block, { type: "text", text: note }] };
}
