import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { tempWorkspace } from "../../testing/fixtures.ts";
import { animatedWebpFile, flatWebpFile, imageIn, pixels, readThroughModel, riffChunk, textIn } from "./test-support.ts";
import { readTool } from "../read.ts";
import { createToolState } from "../state.ts";
import { callWithState } from "../test-helpers.ts";
import { decodeWebpImage, encodeWebpImage } from "./webp-codec.ts";

const RED = [255, 0, 0, 255];
const GREEN = [0, 255, 0, 255];
const BLUE = [0, 0, 255, 255];

test("an animated WebP that fits reaches the model byte for byte, as image/webp, with no note", async (t) => {
  const webp = animatedWebpFile({ width: 640, height: 480 }, [
    { x: 0, y: 0, still: await flatWebpFile(640, 480, RED) },
    { x: 20, y: 40, still: await flatWebpFile(100, 100, GREEN) },
  ]);
  const { result } = await readThroughModel(t, "small.webp", webp);
  assert.notEqual(result.is_error, true, textIn(result));
  const sent = imageIn(result);
  assert.equal(sent.mediaType, "image/webp");
  assert.ok(sent.bytes.equals(webp));
  assert.doesNotMatch(textIn(result), /resized|compressed|frame/);
});

/** Reads `webp` as `name` through the model loop, and decodes the WebP image the model was sent:
 * its size, the RGBA of its pixel at (x, y), and the text beside it. */
async function readShrunk(t: TestContext, name: string, webp: Buffer) {
  const { result } = await readThroughModel(t, name, webp);
  assert.notEqual(result.is_error, true, textIn(result));
  const { mediaType, bytes } = imageIn(result);
  assert.equal(mediaType, "image/webp");
  const decoded = await decodeWebpImage(bytes);
  const at = (x: number, y: number) => [...decoded.data.subarray((y * decoded.width + x) * 4, (y * decoded.width + x) * 4 + 4)];
  return { size: [decoded.width, decoded.height], at, text: textIn(result) };
}

test("an animated WebP larger than the model takes is sent as its first frame on its canvas, shrunk, and the model is told it is the first of its frames", async (t) => {
  // The first frame covers the middle of the canvas only; the rest of the canvas is transparent.
  const webp = animatedWebpFile({ width: 2400, height: 1200 }, [
    { x: 400, y: 200, still: await flatWebpFile(1600, 800, RED) },
    { x: 0, y: 0, still: await flatWebpFile(2400, 1200, GREEN) },
    { x: 0, y: 0, still: await flatWebpFile(2400, 1200, BLUE) },
  ]);
  const { size, at, text } = await readShrunk(t, "moving.webp", webp);
  assert.deepEqual(size, [2000, 1000]);
  const [r, g, b, a] = at(1000, 500);
  assert.ok(r! > 240 && g! < 15 && b! < 15 && a === 255, `${at(1000, 500)}`);
  for (const [x, y] of [[100, 500], [1900, 500], [1000, 50], [1000, 950]] as const) assert.equal(at(x, y)[3], 0, `${x},${y}: ${at(x, y)}`);
  assert.match(text, /The image moving\.webp was resized from 2400×1200 to 2000×1000 pixels to fit the model's image limits; the file itself is unchanged\. It is the first of the animation's 3 frames\./);
});

test("an animated WebP of one lossy frame with an alpha channel keeps its transparency when shrunk", async (t) => {
  // A lossy still with transparency is VP8X, ALPH and VP8 chunks; the frame holds the last two.
  const still = Buffer.from(await encodeWebpImage({ width: 2200, height: 400, data: pixels(2200, 400, true) }, 90));
  assert.equal(still.toString("latin1", 12, 16), "VP8X");
  const webp = animatedWebpFile({ width: 2200, height: 400 }, [{ x: 0, y: 0, still }]);
  const { size, at, text } = await readShrunk(t, "fade.webp", webp);
  assert.deepEqual(size, [2000, 364]);
  assert.equal(at(200, 180)[3], 0);
  assert.ok(at(1900, 180)[0]! > 220 && at(1900, 180)[3] === 255, `${at(1900, 180)}`);
  assert.match(text, /resized from 2200×400 to 2000×364 pixels .* It is the animation's only frame\./);
});

test("a damaged animated WebP is refused with a message naming what is wrong, whether it fits or would be shrunk", async (t) => {
  const cwd = await tempWorkspace(t);
  const red = await flatWebpFile(100, 100, RED);
  const canvas = { width: 300, height: 200 };
  const whole = animatedWebpFile(canvas, [{ x: 0, y: 0, still: red }, { x: 100, y: 100, still: red }]);
  const withoutAnim = Buffer.concat([whole.subarray(0, 30), whole.subarray(44)]);
  withoutAnim.writeUInt32LE(withoutAnim.length - 8, 4);
  // A frame header with no image after it.
  const empty = Buffer.alloc(16);
  empty.writeUIntLE(99, 6, 3);
  empty.writeUIntLE(99, 9, 3);
  const imageless = Buffer.concat([whole.subarray(0, 44), riffChunk("ANMF", empty)]);
  imageless.writeUInt32LE(imageless.length - 8, 4);
  const big = animatedWebpFile({ width: 2400, height: 100 }, [{ x: 0, y: 0, still: await flatWebpFile(2400, 100, RED) }]);
  // A frame header that says 80 rows, over an image of 100; seen only once the frame is decoded.
  const misfit = Buffer.from(big);
  misfit.writeUIntLE(80 - 1, 44 + 8 + 9, 3);
  const cases: [string, Buffer, RegExp][] = [
    ["cut.webp", whole.subarray(0, whole.length - 20), /^cut\.webp is a damaged animated WebP image: it is cut short \(\d+ of the \d+ bytes its RIFF header gives\)\.$/],
    ["cut-big.webp", big.subarray(0, big.length - 20), /^cut-big\.webp is a damaged animated WebP image: it is cut short/],
    ["outside.webp", animatedWebpFile(canvas, [{ x: 0, y: 0, still: red }, { x: 250, y: 0, still: red }]), /^outside\.webp is a damaged animated WebP image: its frame 2 \(100×100 pixels at 250,0\) does not fit within its 300×200 canvas\.$/],
    ["none.webp", animatedWebpFile(canvas, []), /^none\.webp is a damaged animated WebP image: it has no frames\.$/],
    ["noanim.webp", withoutAnim, /^noanim\.webp is a damaged animated WebP image: its frames come before its ANIM chunk\.$/],
    ["misfit.webp", misfit, /^misfit\.webp is 2400×100 pixels .*could not be shrunk: it cannot be decoded as a WebP image \(its frame 1 holds an image of 2400×100 pixels, not the 2400×80 its frame header gives\)\.$/],
    ["imageless.webp", imageless, /^imageless\.webp is a damaged animated WebP image: its frame 1 holds no VP8 or VP8L image\.$/],
  ];
  for (const [file, bytes, expected] of cases) {
    await fs.writeFile(path.join(cwd, file), bytes);
    const out = await callWithState(readTool, { file_path: file }, cwd, createToolState());
    assert.equal(out.isError, true, `${file}: ${out.content}`);
    assert.equal(out.blocks, undefined, file);
    assert.match(out.content, expected);
  }
});
