// WebP decoding and encoding (libwebp compiled to WebAssembly, from @jsquash/webp). Its modules
// would fetch their .wasm by URL, which Node cannot; they are compiled here from the package's
// files instead, once per thread, when a WebP image is first met.
import fs from "node:fs/promises";
import decodeWebp, { init as initDecoder } from "@jsquash/webp/decode.js";
import encodeWebp, { init as initEncoder } from "@jsquash/webp/encode.js";
import type { Raster } from "./decode.ts";

let decoderReady: Promise<unknown> | undefined;
let encoderReady: Promise<unknown> | undefined;

async function compiled(file: string): Promise<WebAssembly.Module> {
  return WebAssembly.compile(await fs.readFile(new URL(import.meta.resolve(`@jsquash/webp/codec/${file}`))));
}

export async function decodeWebpImage(bytes: Uint8Array): Promise<Raster> {
  decoderReady ??= compiled("dec/webp_dec.wasm").then((module) => (initDecoder as (module: WebAssembly.Module) => Promise<unknown>)(module));
  await decoderReady;
  // The decoder takes an ArrayBuffer of just these bytes. A copy: a Buffer's slice() is a view, and a
  // small Buffer's memory is a pool shared with others.
  const image = await decodeWebp(new Uint8Array(bytes).buffer);
  return { width: image.width, height: image.height, data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength) };
}

/** `quality` 0–100 (lossy), or "lossless". */
export async function encodeWebpImage(image: Raster, quality: number | "lossless"): Promise<Uint8Array> {
  // The encoder's loader picks its SIMD build where WebAssembly has SIMD, as every Node that runs
  // this does; the module given must be that build's.
  encoderReady ??= compiled("enc/webp_enc_simd.wasm").then((module) => (initEncoder as (module: WebAssembly.Module) => Promise<unknown>)(module));
  await encoderReady;
  const data = new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.byteLength);
  const options = quality === "lossless" ? { lossless: 1, quality: 75 } : { quality };
  return new Uint8Array(await encodeWebp({ width: image.width, height: image.height, data, colorSpace: "srgb" } as ImageData, options));
}
