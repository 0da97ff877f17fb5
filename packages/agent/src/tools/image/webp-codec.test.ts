import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeWebpImage, encodeWebpImage } from "./webp-codec.ts";

test("a small WebP held in a Buffer from Node's shared pool decodes as itself", async () => {
  const data = new Uint8Array(4 * 4 * 4).fill(255);
  const webp = await encodeWebpImage({ width: 4, height: 4, data }, "lossless");
  // Buffer.from of a short base64 string takes its memory from the pool other Buffers share.
  const pooled = Buffer.from(Buffer.from(webp).toString("base64"), "base64");
  assert.ok(pooled.buffer.byteLength > pooled.byteLength, "the Buffer is a view of a larger pool");
  const image = await decodeWebpImage(pooled);
  assert.deepEqual([image.width, image.height], [4, 4]);
  assert.deepEqual([...image.data.subarray(0, 4)], [255, 255, 255, 255]);
});
