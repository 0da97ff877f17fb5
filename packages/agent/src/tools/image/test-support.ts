// Images made in tests (PNG, JPEG, GIF, WebP bytes from pixels drawn here) and what the model got
// of them.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import type { TestContext } from "node:test";
import { promisify } from "node:util";
import type { ContentBlock, ToolResultBlock } from "@harness/llm";
import type { AgentEvent } from "@harness/protocol";
import jpeg from "jpeg-js";
import { GifWriter } from "omggif";
import { PNG } from "pngjs";
import { tempWorkspace, withoutCacheMarks } from "../../testing/fixtures.ts";
import { runInProject, tempProject } from "../../testing/project.ts";
import encodeMozJpeg, { init as initMozJpeg } from "@jsquash/jpeg/encode.js";
import type { ImageType } from "./size.ts";
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

let mozJpegReady: Promise<unknown> | undefined;

/** A JPEG as MozJPEG writes it: progressive, chroma subsampled 4:2:0, unless `options` say
 * otherwise (`color_space`: 1 grey, 2 RGB, 3 YCbCr). */
export async function mozJpegFile(image: { width: number; height: number; data: Uint8Array }, options: { quality?: number; progressive?: boolean; baseline?: boolean; color_space?: number } = {}): Promise<Buffer> {
  const wasm = async () => WebAssembly.compile(await fs.readFile(new URL(import.meta.resolve("@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm"))));
  mozJpegReady ??= wasm().then((module) => (initMozJpeg as (module: WebAssembly.Module) => Promise<unknown>)(module));
  await mozJpegReady;
  const data = new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  return Buffer.from(await encodeMozJpeg({ width: image.width, height: image.height, data, colorSpace: "srgb" } as ImageData, options));
}

export async function webpFile(width: number, height: number, quality: number | "lossless" = 90): Promise<Buffer> {
  return Buffer.from(await encodeWebpImage({ width, height, data: pixels(width, height) }, quality));
}

/** A `width` × `height` WebP of one colour (`rgba`), lossless unless a `quality` is given. */
export async function flatWebpFile(width: number, height: number, rgba: number[], quality: number | "lossless" = "lossless"): Promise<Buffer> {
  const data = new Uint8Array(width * height * 4).map((_, i) => rgba[i % 4]!);
  return Buffer.from(await encodeWebpImage({ width, height, data }, quality));
}

/** An animated WebP of a `canvas` of that size: the RIFF, VP8X, ANIM and ANMF chunks around the
 * bitstream chunks (VP8L, or ALPH and VP8) of each still WebP of `frames`, placed at its (even)
 * offset on the canvas. */
export function animatedWebpFile(canvas: { width: number; height: number }, frames: { x: number; y: number; still: Buffer }[]): Buffer {
  const flags = Buffer.alloc(10);
  flags[0] = 0x02 | 0x10; // Animation, alpha.
  flags.writeUIntLE(canvas.width - 1, 4, 3);
  flags.writeUIntLE(canvas.height - 1, 7, 3);
  const anmfs = frames.map(({ x, y, still }) => {
    const header = Buffer.alloc(16);
    const size = stillWebpSize(still);
    header.writeUIntLE(x / 2, 0, 3);
    header.writeUIntLE(y / 2, 3, 3);
    header.writeUIntLE(size.width - 1, 6, 3);
    header.writeUIntLE(size.height - 1, 9, 3);
    header.writeUIntLE(100, 12, 3); // Duration, in milliseconds.
    // A still with a VP8X header has its ALPH and VP8 chunks after it.
    return riffChunk("ANMF", Buffer.concat([header, still.subarray(still.toString("latin1", 12, 16) === "VP8X" ? 30 : 12)]));
  });
  // ANIM: a transparent background, looping for ever.
  const body = Buffer.concat([Buffer.from("WEBP", "latin1"), riffChunk("VP8X", flags), riffChunk("ANIM", Buffer.alloc(6)), ...anmfs]);
  return riffChunk("RIFF", body);
}

function stillWebpSize(still: Buffer): { width: number; height: number } {
  if (still.toString("latin1", 12, 16) === "VP8X") return { width: 1 + still.readUIntLE(24, 3), height: 1 + still.readUIntLE(27, 3) };
  if (still.toString("latin1", 12, 16) === "VP8 ") return { width: still.readUInt16LE(26) & 0x3fff, height: still.readUInt16LE(28) & 0x3fff };
  const bits = still.readUInt32LE(21); // VP8L.
  return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >> 14) & 0x3fff) };
}

/** A RIFF chunk: its FourCC, its size, its payload padded to an even length. */
export function riffChunk(fourCC: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(fourCC, 0, "latin1");
  header.writeUInt32LE(payload.length, 4);
  return Buffer.concat([header, payload, Buffer.alloc(payload.length % 2)]);
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

/** Shrinks `bytes` (written to a file of a temp directory) in a process of its own: what they were
 * shrunk to (or why not), and the process's peak memory. */
export async function shrinkInChild(t: TestContext, bytes: Buffer, type: ImageType): Promise<{ to: unknown; peakMb: number }> {
  const file = path.join(await tempWorkspace(t), "big");
  await fs.writeFile(file, bytes);
  const script = `
    import fs from "node:fs";
    import { shrinkImage } from ${JSON.stringify(new URL("./shrink.ts", import.meta.url).href)};
    const shrunk = await shrinkImage(new Uint8Array(fs.readFileSync(${JSON.stringify(file)})), ${JSON.stringify(type)}, { maxSide: 2000, maxBytes: 3932160 });
    console.log(JSON.stringify({ to: shrunk.ok ? shrunk.to : shrunk.reason, peakMb: Math.round(process.resourceUsage().maxRSS / 1024) }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script]);
  return JSON.parse(stdout) as { to: unknown; peakMb: number };
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

/** A JPEG whose every MCU is flat: `sampleAt(mx, my)` gives each component's sample there.
 * Components are numbered from 1 with the sampling factors given; `adobeTransform` adds an Adobe
 * marker saying so. Baseline in one scan, or `progressive`: the DC of all components in one scan,
 * then each component's (zero) AC in a scan of its own. Encoded here because no JavaScript encoder
 * writes CMYK. */
export function flatJpegFile(width: number, height: number, sampling: { h: number; v: number }[], sampleAt: (mx: number, my: number) => number[], adobeTransform?: number, progressive = false): Buffer {
  const dcCounts = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
  const dcCodes = canonicalCodes(dcCounts); // Symbol k (a size category) has code dcCodes[k].
  const segment = (marker: number, body: number[]) => [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body];
  const n = sampling.length;
  const bytes: number[] = [
    0xff, 0xd8,
    ...(adobeTransform === undefined ? [] : segment(0xee, [..."Adobe"].map((c) => c.charCodeAt(0)).concat([0, 100, 0, 0, 0, 0, adobeTransform]))),
    ...segment(0xdb, [0, ...Array(64).fill(1)]),
    ...segment(progressive ? 0xc2 : 0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, n, ...sampling.flatMap((s, i) => [i + 1, (s.h << 4) | s.v, 0])]),
    // DC sizes 0–11 with the standard luminance code lengths; AC: only end-of-block, coded "0".
    ...segment(0xc4, [0x00, ...dcCounts, ...Array.from({ length: 12 }, (_, k) => k), 0x10, 1, ...Array(15).fill(0), 0x00]),
  ];
  let bits = 0;
  let count = 0;
  const put = (value: number, length: number) => {
    for (let i = length - 1; i >= 0; i--) {
      bits = (bits << 1) | ((value >> i) & 1);
      if (++count === 8) {
        bytes.push(bits);
        if (bits === 0xff) bytes.push(0);
        bits = 0;
        count = 0;
      }
    }
  };
  const endScan = () => {
    if (count > 0) put((1 << (8 - count)) - 1, 8 - count);
  };
  const hMax = Math.max(...sampling.map((s) => s.h));
  const vMax = Math.max(...sampling.map((s) => s.v));
  const previous = Array(n).fill(0);
  bytes.push(...segment(0xda, [n, ...sampling.flatMap((_, i) => [i + 1, 0x00]), 0, progressive ? 0 : 63, 0]));
  for (let my = 0; my < Math.ceil(height / (8 * vMax)); my++) {
    for (let mx = 0; mx < Math.ceil(width / (8 * hMax)); mx++) {
      const samples = sampleAt(mx, my);
      sampling.forEach(({ h, v }, c) => {
        for (let b = 0; b < h * v; b++) {
          const dc = 8 * (samples[c]! - 128); // A flat block's DC coefficient.
          const diff = dc - previous[c];
          previous[c] = dc;
          const size = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
          put(dcCodes[size]!.code, dcCodes[size]!.length);
          put(diff < 0 ? diff + (1 << size) - 1 : diff, size);
          if (!progressive) put(0, 1); // End of block.
        }
      });
    }
  }
  endScan();
  if (progressive) {
    sampling.forEach(({ h, v }, c) => {
      bytes.push(...segment(0xda, [1, c + 1, 0x00, 1, 63, 0]));
      const blocks = Math.ceil(Math.ceil((width * h) / hMax) / 8) * Math.ceil(Math.ceil((height * v) / vMax) / 8);
      for (let b = 0; b < blocks; b++) put(0, 1); // End of band.
      endScan();
    });
  }
  return Buffer.from([...bytes, 0xff, 0xd9]);
}

function canonicalCodes(counts: number[]): { code: number; length: number }[] {
  const codes: { code: number; length: number }[] = [];
  let code = 0;
  counts.forEach((count, i) => {
    for (let k = 0; k < count; k++) codes.push({ code: code++, length: i + 1 });
    code <<= 1;
  });
  return codes;
}
