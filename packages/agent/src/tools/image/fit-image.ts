// An image made fit for the model API before it is sent, as Claude Code does: one larger than
// FIT_SIDE on a side or than the byte limit is scaled down (shrink.ts, on a worker thread)
// and the model is told so. An image that fits is sent as it is, byte for byte.
import { Worker } from "node:worker_threads";
import type { ToolImageBlock, ToolOutput, ToolOutputBlock } from "../../types.ts";
import type { Dimensions } from "./area-scaler.ts";
// Types only: the codecs load on the worker thread, not in every process that might see an image.
import type { Shrunk } from "./shrink.ts";
import { imageSize, MAX_DECODED_PIXELS, sniffImageType, type ImageType } from "./size.ts";
import { formatBytes } from "../paths.ts";
import { readWebpAnimation } from "./webp-animation.ts";

/** Longest side of an image sent to the model, in pixels. The API takes 8000, but only 2000 in a
 * request of more than 20 images (which a long session reaches), and scales anything above 1568
 * down itself; Claude Code keeps images within 2000×2000 too. */
export const FIT_SIDE = 2000;

/** Images larger than this are not taken at all, not even to be shrunk: decoding one would take
 * long and most of a gigabyte. */
export const MAX_IMAGE_SOURCE_BYTES = 64 * 1024 * 1024;

/** How an image was made fit: its size as stored and as sent, and, when it was an animation whose
 * first frame was sent, how many frames it has. */
export type Resized = { from: Dimensions; to: Dimensions; frames?: number };

export type Fitted =
  | { ok: true; block: ToolImageBlock; resized?: Resized }
  | { ok: false; message: string };

/** `bytes` (of the sniffed `type`) as an image block the model API takes, or why it cannot be.
 * `file`: the file shown so, whose refusal says how to make a smaller copy of it; absent for an
 * image that is no file (a tool's result). An image whose header gives no size is sent as it is
 * while its bytes fit: deciding whether it is whole would mean decoding every image. An animated
 * WebP's chunks are read, though, which takes no decoding: one that is damaged is refused. */
export async function fitImage(bytes: Buffer, type: ImageType, file: string | undefined, maxBytes: number, signal?: AbortSignal): Promise<Fitted> {
  const shown = file ?? "The image";
  const copy = (resize: string, name: string) => (file ? ` Make a smaller copy, for example with ImageMagick through Bash: convert "${file}" -resize ${resize} ${name}, and Read that.` : "");
  const damage = type === "image/webp" ? webpAnimationDamage(bytes) : undefined;
  if (damage) return { ok: false, message: `${shown} is a damaged animated WebP image: ${damage}.` };
  const size = imageSize(bytes, type);
  const side = size ? Math.max(size.width, size.height) : 0;
  if (bytes.length <= maxBytes && side <= FIT_SIDE) return { ok: true, block: imageBlock(type, bytes) };
  const described = size ? `${size.width}×${size.height} pixels (${formatBytes(bytes.length)})` : formatBytes(bytes.length);
  if (size && size.width * size.height > MAX_DECODED_PIXELS) {
    return { ok: false, message: `${shown} is ${described}, more than the model takes and too large to shrink here (at most ${Math.round(MAX_DECODED_PIXELS / 1e6)} megapixels).${copy(`${FIT_SIDE}x${FIT_SIDE}`, "smaller.jpg")}` };
  }
  const shrunk = await shrinkOnWorker(bytes, type, { maxSide: FIT_SIDE, maxBytes }, signal);
  if (!shrunk.ok) return { ok: false, message: `${shown} is ${described}, more than the model takes, and could not be shrunk: ${shrunk.reason}.` };
  return { ok: true, block: imageBlock(shrunk.mediaType, Buffer.from(shrunk.bytes)), resized: { from: shrunk.from, to: shrunk.to, ...(shrunk.frames && { frames: shrunk.frames }) } };
}

/** What the model is told of an image it got smaller than it was, or got the first frame of;
 * `subject` names it ("The image shot.png"). */
export function resizeNote(subject: string, { from, to, frames }: Resized, file = true): string {
  const sized = from.width === to.width && from.height === to.height ? `was compressed at ${to.width}×${to.height} pixels` : `was resized from ${from.width}×${from.height} to ${to.width}×${to.height} pixels`;
  const frame = !frames ? "" : frames === 1 ? " It is the animation's only frame." : ` It is the first of the animation's ${frames} frames.`;
  return `${subject} ${sized} to fit the model's image limits${file ? "; the file itself is unchanged" : ""}.${frame}`;
}

/** What is wrong with an animated WebP's chunks, if anything. */
function webpAnimationDamage(bytes: Buffer): string | undefined {
  try {
    readWebpAnimation(bytes);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A tool result's images (an MCP server's) made fit for the model: each shrunk one followed by a
 * note saying so, each that cannot be replaced by a note saying why. The type an image's bytes
 * show wins over the type the server declared: the API refuses a mismatch (and bytes that show
 * none of its types are left out). */
export async function fitOutputImages(output: ToolOutput, maxBytes: number, signal?: AbortSignal): Promise<ToolOutput> {
  if (!output.blocks?.some((block) => block.type === "image")) return output;
  const blocks: ToolOutputBlock[] = [];
  const notes: string[] = [];
  for (const block of output.blocks) {
    if (block.type !== "image") {
      blocks.push(block);
      continue;
    }
    const bytes = Buffer.from(block.source.data, "base64");
    const type = sniffImageType(bytes);
    // The API refuses what is no image of its types, and then every later request of the conversation.
    const fitted: Fitted = type ? await fitImage(bytes, type, undefined, maxBytes, signal) : { ok: false, message: `The image is no PNG, JPEG, GIF or WebP image (${formatBytes(bytes.length)}).` };
    const note = !fitted.ok ? `[image omitted: ${fitted.message}]` : fitted.resized ? resizeNote("The image", fitted.resized, false) : undefined;
    if (fitted.ok) blocks.push(fitted.block);
    if (note) {
      blocks.push({ type: "text", text: note });
      notes.push(note);
    }
  }
  const { blocks: _, ...rest } = output;
  const content = [output.content, ...notes].join("\n");
  return blocks.some((block) => block.type === "image") ? { ...rest, content, blocks } : { ...rest, content };
}

function imageBlock(type: ImageType, bytes: Buffer): ToolImageBlock {
  return { type: "image", source: { type: "base64", media_type: type, data: bytes.toString("base64") } };
}

/** Shrinks that run at once, in this process: a baseline JPEG or a PNG is decoded a few rows at a
 * time, but a progressive JPEG holds every block's coefficients (some 330 MB at 64 megapixels) and
 * an interlaced PNG, a GIF or a WebP is held decoded whole (a gigabyte or more for the largest
 * image taken), and one reply may Read a dozen images, or many sessions of one runner read at the
 * same time. The others wait their turn. */
const SHRINK_SLOTS = 2;
let shrinking = 0;
const waiting: (() => void)[] = [];

/** Resolves true once a shrink may start (the caller then owes releaseShrinkSlot), or false when
 * `signal` fires first. */
function shrinkSlot(signal?: AbortSignal): Promise<boolean> {
  if (shrinking < SHRINK_SLOTS) {
    shrinking++;
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const start = () => {
      signal?.removeEventListener("abort", onAbort);
      shrinking++;
      resolve(true);
    };
    const onAbort = () => {
      waiting.splice(waiting.indexOf(start), 1);
      resolve(false);
    };
    waiting.push(start);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function releaseShrinkSlot(): void {
  shrinking--;
  waiting.shift()?.();
}

/** Decoding a photo of tens of megapixels takes seconds, which on the runner's own thread would
 * stop every session it serves. */
async function shrinkOnWorker(bytes: Buffer, type: ImageType, limits: { maxSide: number; maxBytes: number }, signal?: AbortSignal): Promise<Shrunk> {
  const cancelled: Shrunk = { ok: false, reason: "the read was cancelled" };
  if (signal?.aborted || !(await shrinkSlot(signal))) return cancelled;
  if (signal?.aborted) {
    releaseShrinkSlot();
    return cancelled;
  }
  return new Promise((resolve) => {
    const worker = new Worker(new URL("./shrink-worker.ts", import.meta.url), { workerData: { bytes: new Uint8Array(bytes), type, limits } });
    let settled = false;
    const settle = (result: Shrunk) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      // The slot is free once the thread is gone, with the memory it held.
      void worker.terminate().finally(releaseShrinkSlot);
      resolve(result);
    };
    const onAbort = () => settle(cancelled);
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (result: Shrunk) => settle(result));
    worker.once("error", (error) => settle({ ok: false, reason: error.message }));
    worker.once("exit", (code) => settle({ ok: false, reason: `the decoder stopped (exit code ${code})` }));
  });
}
