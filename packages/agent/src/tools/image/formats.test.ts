import assert from "node:assert/strict";
import { test } from "node:test";
import { PNG } from "pngjs";
import { fitImage } from "./fit-image.ts";
import { gifFile, imageIn, pixels, pngFile, readThroughModel, textIn, webpFile } from "./test-support.ts";
import { decodeWebpImage, encodeWebpImage } from "./webp-codec.ts";

test("a GIF larger than the model takes is sent as its first frame, shrunk to a PNG, and the model is told", async (t) => {
  const { result } = await readThroughModel(t, "anim.gif", gifFile(3000, 1500, 2, 300));
  assert.notEqual(result.is_error, true, textIn(result));
  const { mediaType, bytes } = imageIn(result);
  assert.equal(mediaType, "image/png");
  const decoded = PNG.sync.read(bytes);
  assert.deepEqual([decoded.width, decoded.height], [2000, 1000]);
  // The first frame: red, with its black stripe (a sixth of the width) on the left.
  const rgb = (x: number, y: number) => [...decoded.data.subarray((y * 2000 + x) * 4, (y * 2000 + x) * 4 + 3)];
  assert.deepEqual(rgb(1000, 500), [255, 0, 0]);
  assert.deepEqual(rgb(50, 500), [0, 0, 0]);
  assert.match(textIn(result), /The image anim\.gif was resized from 3000×1500 to 2000×1000 pixels to fit the model's image limits; the file itself is unchanged\. It is the first of the animation's 2 frames\./);
});

test("a still GIF larger than the model takes is shrunk with no word of frames", async (t) => {
  const { result } = await readThroughModel(t, "still.gif", gifFile(3000, 1500, 1));
  assert.notEqual(result.is_error, true, textIn(result));
  assert.match(textIn(result), /The image still\.gif was resized from 3000×1500 to 2000×1000 pixels/);
  assert.doesNotMatch(textIn(result), /frame/);
});

test("a WebP larger than the model takes is shrunk to fit as a WebP, and the model is told", async (t) => {
  const { result } = await readThroughModel(t, "shot.webp", await webpFile(2500, 2500));
  assert.notEqual(result.is_error, true, textIn(result));
  const { mediaType, bytes } = imageIn(result);
  assert.equal(mediaType, "image/webp");
  const decoded = await decodeWebpImage(bytes);
  assert.deepEqual([decoded.width, decoded.height], [2000, 2000]);
  const red = (x: number, y: number) => decoded.data[(y * 2000 + x) * 4]!;
  assert.ok(red(1990, 1000) > 235 && red(10, 1000) < 20, `${red(1990, 1000)} ${red(10, 1000)}`);
  assert.match(textIn(result), /The image shot\.webp was resized from 2500×2500 to 2000×2000 pixels to fit the model's image limits/);
});

test("a GIF or WebP that fits reaches the model byte for byte, with no note", async (t) => {
  for (const [file, bytes, type] of [["small.gif", gifFile(400, 300), "image/gif"], ["small.webp", await webpFile(640, 480), "image/webp"]] as const) {
    const { result } = await readThroughModel(t, file, bytes);
    const sent = imageIn(result);
    assert.equal(sent.mediaType, type);
    assert.ok(sent.bytes.equals(bytes), file);
    assert.doesNotMatch(textIn(result), /resized|compressed/);
  }
});

test("a WebP within the sides but over the byte limit is compressed at its size", async () => {
  // A gradient with a little noise, as a photo has, which a lossless encoding cannot make small.
  let seed = 1;
  const noisy = Uint8Array.from(pixels(600, 400), (v, i) => (i % 4 === 3 ? v : Math.max(0, Math.min(255, v + ((seed = (seed * 1103515245 + 12345) % 2 ** 31) >> 27) - 8))));
  const lossless = Buffer.from(await encodeWebpImage({ width: 600, height: 400, data: noisy }, "lossless"));
  const fitted = await fitImage(lossless, "image/webp", "big.webp", Math.floor(lossless.length / 2));
  assert.ok(fitted.ok, fitted.ok ? "" : fitted.message);
  assert.equal(fitted.block.source.media_type, "image/webp");
  assert.deepEqual(fitted.resized, { from: { width: 600, height: 400 }, to: { width: 600, height: 400 } });
  assert.ok(Buffer.from(fitted.block.source.data, "base64").length <= lossless.length / 2);
});

test("a damaged GIF or WebP too large to send as it is is an error naming the file and the format", async () => {
  const gif = gifFile(2400, 100).subarray(0, 40);
  const fittedGif = await fitImage(Buffer.concat([gif, Buffer.from("cut short")]), "image/gif", "cut.gif", 3_932_160);
  assert.match(fittedGif.ok ? "sent" : fittedGif.message, /^cut\.gif is 2400×100 pixels .*could not be shrunk: it cannot be decoded as a GIF image/);
  const webp = await webpFile(2100, 50);
  const fittedWebp = await fitImage(Buffer.concat([webp.subarray(0, 40), Buffer.alloc(200)]), "image/webp", "cut.webp", 3_932_160);
  assert.match(fittedWebp.ok ? "sent" : fittedWebp.message, /^cut\.webp is 2100×50 pixels .*could not be shrunk: it cannot be decoded as a WebP image/);
  // A PNG is still taken as it was.
  assert.ok((await fitImage(pngFile(10, 10), "image/png", "tiny.png", 3_932_160)).ok);
});
