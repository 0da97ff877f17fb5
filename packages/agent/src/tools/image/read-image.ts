// Images for the model: Read returns PNG, JPEG, GIF and WebP files as image content blocks.
import path from "node:path";
import type { ToolOutput } from "../../types.ts";
import { fitImage, MAX_IMAGE_SOURCE_BYTES, resizeNote } from "./fit-image.ts";
import { sniffImageType } from "./size.ts";
import { formatBytes, wholeFile } from "../paths.ts";

export const IMAGE_EXTENSIONS: ReadonlySet<string> = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);

export function isImagePath(file: string): boolean {
  return IMAGE_EXTENSIONS.has(path.extname(file).toLowerCase());
}

/** The image for the model: as the file is when the API takes it so, shrunk (and the model told so)
 * when it is too large for it, refused when it cannot be shrunk. */
export async function readImage(file: string, shown: string, size: number, maxBytes: number, signal?: AbortSignal): Promise<ToolOutput> {
  if (size > MAX_IMAGE_SOURCE_BYTES) {
    return {
      content: `${shown} is too large to show as an image (${formatBytes(size)}; files over ${formatBytes(MAX_IMAGE_SOURCE_BYTES)} are not read as images). Make a smaller copy, for example with ImageMagick through Bash: convert "${shown}" -resize 2000x2000 smaller.jpg, and Read that.`,
      isError: true,
    };
  }
  const bytes = await wholeFile(file, shown);
  if (!Buffer.isBuffer(bytes)) return bytes;
  const mediaType = sniffImageType(bytes);
  if (!mediaType) return { content: `${shown} has an image file extension, but its content is not a PNG, JPEG, GIF or WebP image.`, isError: true };
  const fitted = await fitImage(bytes, mediaType, shown, maxBytes, signal);
  if (!fitted.ok) return { content: fitted.message, isError: true };
  const sent = fitted.block.source;
  const content = `Read image ${shown} (${sent.media_type}, ${formatBytes(Buffer.byteLength(sent.data, "base64"))}).`;
  if (!fitted.resized) return { content, blocks: [fitted.block] };
  const note = resizeNote(`The image ${shown}`, fitted.resized);
  return { content: `${content} ${note}`, blocks: [fitted.block, { type: "text", text: note }] };
}
