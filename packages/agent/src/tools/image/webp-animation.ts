// An animated WebP's container (RIFF, VP8X, ANIM, ANMF chunks), read without decoding a frame:
// whether it is whole, how many frames it has, and its first frame as a still WebP that the
// still-image decoder (webp-codec.ts) takes.
import type { Dimensions } from "./area-scaler.ts";

export type WebpFrame = { x: number; y: number; width: number; height: number };

export type WebpAnimation = {
  canvas: Dimensions;
  frames: number;
  first: WebpFrame & {
    /** The frame's image as a still WebP file. */
    still: Uint8Array;
  };
};

type Chunk = { fourCC: string; payload: Uint8Array };

const ANIMATION_FLAG = 0x02;
const ALPHA_FLAG = 0x10;
const ANMF_HEADER_BYTES = 16;

/** The animation `bytes` (a WebP file) hold, or undefined for a still WebP (one whose VP8X header
 * does not say it is animated). Throws an Error saying what is wrong with an animation that is
 * damaged. */
export function readWebpAnimation(bytes: Uint8Array): WebpAnimation | undefined {
  if (bytes.length < 30 || latin1(bytes, 12, 16) !== "VP8X" || (bytes[20]! & ANIMATION_FLAG) === 0) return undefined;
  const end = 8 + readUInt(bytes, 4, 4);
  if (end > bytes.length) throw new Error(`it is cut short (${bytes.length} of the ${end} bytes its RIFF header gives)`);
  const canvas = { width: 1 + readUInt(bytes, 24, 3), height: 1 + readUInt(bytes, 27, 3) };
  let animSeen = false;
  let frames = 0;
  let first: WebpAnimation["first"] | undefined;
  for (const { fourCC, payload } of chunks(bytes, 30, end, "the file")) {
    if (fourCC === "ANIM") animSeen = true;
    if (fourCC !== "ANMF") continue;
    if (!animSeen) throw new Error("its frames come before its ANIM chunk");
    frames++;
    const frame = readFrame(payload, frames, canvas);
    first ??= frame;
  }
  if (!first) throw new Error("it has no frames");
  return { canvas, frames, first };
}

/** The `number`th frame's place on the canvas and its image; throws if it has none or lies outside. */
function readFrame(payload: Uint8Array, number: number, canvas: Dimensions): WebpAnimation["first"] {
  if (payload.length < ANMF_HEADER_BYTES) throw new Error(`its frame ${number} is cut short`);
  const frame = {
    x: 2 * readUInt(payload, 0, 3),
    y: 2 * readUInt(payload, 3, 3),
    width: 1 + readUInt(payload, 6, 3),
    height: 1 + readUInt(payload, 9, 3),
  };
  if (frame.x + frame.width > canvas.width || frame.y + frame.height > canvas.height) {
    throw new Error(`its frame ${number} (${frame.width}×${frame.height} pixels at ${frame.x},${frame.y}) does not fit within its ${canvas.width}×${canvas.height} canvas`);
  }
  // The frame's data: an optional ALPH chunk before a VP8 one, or a VP8L one; unknown chunks are skipped.
  const inner = [...chunks(payload, ANMF_HEADER_BYTES, payload.length, `its frame ${number}`)];
  const image = inner.find((chunk) => chunk.fourCC === "VP8 " || chunk.fourCC === "VP8L");
  if (!image) throw new Error(`its frame ${number} holds no VP8 or VP8L image`);
  const alpha = image.fourCC === "VP8 " ? inner.find((chunk) => chunk.fourCC === "ALPH") : undefined;
  return { ...frame, still: stillWebp(frame, image, alpha) };
}

/** A still WebP file of the frame's image: the image chunk alone, or with its alpha chunk behind a
 * VP8X header that says the image has one. */
function stillWebp(size: Dimensions, image: Chunk, alpha: Chunk | undefined): Uint8Array {
  const parts = [image];
  if (alpha) {
    const header = new Uint8Array(10);
    header[0] = ALPHA_FLAG;
    writeUInt(header, 4, 3, size.width - 1);
    writeUInt(header, 7, 3, size.height - 1);
    parts.unshift({ fourCC: "VP8X", payload: header }, alpha);
  }
  const body = [new TextEncoder().encode("WEBP"), ...parts.map(chunkBytes)];
  return chunkBytes({ fourCC: "RIFF", payload: concat(body) });
}

/** The chunks from `start` to `end` of `where` ("the file", "its frame 2"), each padded to an
 * even length. */
function* chunks(bytes: Uint8Array, start: number, end: number, where: string): Generator<Chunk> {
  for (let at = start; at < end; ) {
    if (at + 8 > end) throw new Error(`${where} ends inside a chunk header`);
    const fourCC = latin1(bytes, at, at + 4);
    const size = readUInt(bytes, at + 4, 4);
    if (at + 8 + size > end) throw new Error(`the ${JSON.stringify(fourCC)} chunk at byte ${at} of ${where} runs past its end`);
    yield { fourCC, payload: bytes.subarray(at + 8, at + 8 + size) };
    at += 8 + size + (size % 2);
  }
}

function chunkBytes({ fourCC, payload }: Chunk): Uint8Array {
  const out = new Uint8Array(8 + payload.length + (payload.length % 2));
  for (let i = 0; i < 4; i++) out[i] = fourCC.charCodeAt(i);
  writeUInt(out, 4, 4, payload.length);
  out.set(payload, 8);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/** A little-endian unsigned integer of `length` bytes. */
function readUInt(bytes: Uint8Array, at: number, length: number): number {
  let value = 0;
  for (let i = length - 1; i >= 0; i--) value = value * 256 + bytes[at + i]!;
  return value;
}

function writeUInt(bytes: Uint8Array, at: number, length: number, value: number): void {
  for (let i = 0; i < length; i++) bytes[at + i] = Math.floor(value / 256 ** i) % 256;
}
