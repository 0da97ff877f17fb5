// Images made in tests (PNG, JPEG, GIF, WebP bytes from pixels drawn here) and what the model got
// of them.
import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import type { ContentBlock, ToolResultBlock } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";
import jpeg from "jpeg-js";
import { GifWriter } from "omggif";
import { PNG } from "pngjs";
import { withoutCacheMarks } from "../testing/fixtures.ts";
import { runInProject, tempProject } from "../testing/project.ts";
import { encodeWebpImage } from "./webp-codec.ts";

/** A `width` × `height` image with smooth gradients (as a photo or screenshot has), optionally
 * with a transparent left half. */
export function pixels(width: number, height: number, transparentHalf = false): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = Math.floor((x / width) * 255);
      data[i + 1] = Math.floor((y / height) * 255);
      data[i + 2] = 128;
      data[i + 3] = transparentHalf && x < width / 2 ? 0 : 255;
    }
  }
  return data;
}

export function pngFile(width: number, height: number, transparentHalf = false): Buffer {
  const png = new PNG({ width, height });
  png.data = pixels(width, height, transparentHalf);
  return PNG.sync.write(png);
}

export function jpegFile(width: number, height: number): Buffer {
  return jpeg.encode({ width, height, data: pixels(width, height) }, 90).data;
}

export async function webpFile(width: number, height: number, quality: number | "lossless" = 90): Promise<Buffer> {
  return Buffer.from(await encodeWebpImage({ width, height, data: pixels(width, height) }, quality));
}

/** A GIF of `frames` frames (each a palette colour: red, green, blue, …), the first with its left
 * `stripe` pixels black. */
export function gifFile(width: number, height: number, frames = 2, stripe = 0): Buffer {
  const palette = [0xff0000, 0x00ff00, 0x0000ff, 0x000000];
  const buffer = new Uint8Array(width * height * 2 + 4096);
  const writer = new GifWriter(buffer, width, height, { palette, loop: 0 });
  for (let frame = 0; frame < frames; frame++) {
    const indexed = new Uint8Array(width * height).fill(frame % 3);
    if (frame === 0) for (let y = 0; y < height; y++) indexed.fill(3, y * width, y * width + stripe);
    writer.addFrame(0, 0, width, height, indexed, { delay: 10 });
  }
  return Buffer.from(buffer.subarray(0, writer.end()));
}

export function blocksOf(content: string | ContentBlock[] | undefined): ContentBlock[] {
  assert.ok(Array.isArray(content), `expected content blocks, got ${JSON.stringify(content)?.slice(0, 300)}`);
  return content;
}

/** The Read call's tool_result as the model got it in the request after the call. */
export async function readThroughModel(t: TestContext, file: string, bytes: Buffer): Promise<{ result: ToolResultBlock; events: AgentEvent[] }> {
  const project = await tempProject(t);
  await project.write(file, bytes);
  const { provider, events } = await runInProject(project, [{ toolCalls: [{ id: "r1", name: "Read", input: { file_path: file } }] }, { text: "Seen." }]);
  const last = blocksOf(withoutCacheMarks(provider.requests[1]!.messages).at(-1)?.content);
  const result = last.find((b): b is ToolResultBlock => b.type === "tool_result");
  assert.ok(result, JSON.stringify(last).slice(0, 300));
  return { result, events };
}

export function imageIn(result: ToolResultBlock): { mediaType: string; bytes: Buffer } {
  const image = blocksOf(result.content as ContentBlock[]).find((b) => b.type === "image");
  assert.ok(image && image.type === "image" && image.source.type === "base64", JSON.stringify(result).slice(0, 300));
  return { mediaType: image.source.media_type, bytes: Buffer.from(image.source.data, "base64") };
}

export function textIn(result: ToolResultBlock): string {
  return typeof result.content === "string" ? result.content : result.content.map((b) => (b.type === "text" ? b.text : "")).join("\n");
}
