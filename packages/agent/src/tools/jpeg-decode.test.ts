import assert from "node:assert/strict";
import { test } from "node:test";
import jpeg from "jpeg-js";
import { decodeImage } from "./image-decode.ts";
import { imageIn, mozJpegFile, pixels, readThroughModel, textIn } from "./image-test-support.ts";

/** A gradient with noise, which makes MozJPEG refine coefficients over several scans at high quality. */
function noisy(width: number, height: number): { width: number; height: number; data: Uint8Array } {
  let seed = 5;
  const data = Uint8Array.from(pixels(width, height), (v, i) => (i % 4 === 3 ? v : Math.min(255, v + ((seed = (seed * 1103515245 + 12345) % 2 ** 31) >> 26))));
  return { width, height, data };
}

/** The mean difference per channel (alpha left out) between two RGBA images of one size. */
function meanDifference(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) if (i % 4 !== 3) sum += Math.abs(a[i]! - b[i]!);
  return sum / ((a.length * 3) / 4);
}

test("progressive JPEGs, refinement scans included, and baseline ones in 4:2:0 or grey are decoded as jpeg-js decodes them", async () => {
  const source = noisy(400, 300);
  for (const options of [{ quality: 98 }, { quality: 75 }, { baseline: true, progressive: false }, { color_space: 1 }]) {
    const bytes = await mozJpegFile(source, options);
    const { image } = await decodeImage(bytes, "image/jpeg", 2000);
    const difference = meanDifference(image.data, jpeg.decode(bytes, { useTArray: true }).data);
    assert.ok(difference < 1, `${JSON.stringify(options)}: ${difference.toFixed(2)} apart on average`);
  }
  // At the highest quality, near the pixels it was made from.
  const { image } = await decodeImage(await mozJpegFile(source, { quality: 98 }), "image/jpeg", 2000);
  assert.ok(meanDifference(image.data, source.data) < 2);
});

test("an RGB JPEG, as MozJPEG writes it with an Adobe marker, is decoded as RGB, not as YCbCr", async () => {
  const source = { width: 300, height: 200, data: pixels(300, 200) };
  const { image } = await decodeImage(await mozJpegFile(source, { color_space: 2, quality: 95 }), "image/jpeg", 2000);
  const difference = meanDifference(image.data, source.data);
  assert.ok(difference < 2, `${difference.toFixed(2)} apart on average`);
});

test("a progressive JPEG larger than the model takes is shrunk to fit, its colours kept, and the model is told", async (t) => {
  const { result } = await readThroughModel(t, "web.jpg", await mozJpegFile({ width: 2400, height: 1600, data: pixels(2400, 1600) }));
  assert.notEqual(result.is_error, true, textIn(result));
  const { mediaType, bytes } = imageIn(result);
  assert.equal(mediaType, "image/jpeg");
  const decoded = jpeg.decode(bytes, { useTArray: true });
  assert.deepEqual([decoded.width, decoded.height], [2000, 1333]);
  const at = (x: number, y: number) => [...decoded.data.subarray((y * 2000 + x) * 4, (y * 2000 + x) * 4 + 3)];
  for (const [x, y] of [[100, 100], [1900, 700], [1000, 1300]] as const) {
    const expected = [Math.floor((x / 2000) * 255), Math.floor((y / 1333) * 255), 128];
    assert.ok(at(x, y).every((v, i) => Math.abs(v - expected[i]!) <= 8), `at ${x},${y}: ${at(x, y)} is not near ${expected}`);
  }
  assert.match(textIn(result), /The image web\.jpg was resized from 2400×1600 to 2000×1333 pixels/);
});
