import assert from "node:assert/strict";
import { test } from "node:test";
import jpeg from "jpeg-js";
import { fitImage } from "./fit-image.ts";
import { flatJpegFile, imageIn, readThroughModel, shrinkInChild, textIn } from "./test-support.ts";

/** The RGB the model got at (x, y) of a JPEG it was sent. */
function rgbAt(bytes: Buffer, x: number, y: number): number[] {
  const image = jpeg.decode(bytes, { useTArray: true });
  const at = (y * image.width + x) * 4;
  return [...image.data.subarray(at, at + 3)];
}

function near(actual: number[], expected: number[], what: string): void {
  assert.ok(actual.every((v, i) => Math.abs(v - expected[i]!) <= 6), `${what}: ${actual} is not ${expected}`);
}

// 2400×800: left half one colour, right half another, in MCUs of 16×16 (the first component
// sampled at twice the others' rate, as cameras sample luma).
const sampling = [{ h: 2, v: 2 }, { h: 1, v: 1 }, { h: 1, v: 1 }, { h: 1, v: 1 }];
const halves = (left: number[], right: number[]) => (mx: number) => (mx < 75 ? left : right);

test("a CMYK JPEG without an Adobe marker, baseline or progressive, is read as plain CMYK (ink as stored) and sent as RGB", async (t) => {
  for (const progressive of [false, true]) {
    // Cyan ink on the left; magenta with half black on the right.
    const { result } = await readThroughModel(t, "print.jpg", flatJpegFile(2400, 800, sampling, halves([255, 0, 0, 0], [0, 255, 0, 128]), undefined, progressive));
    assert.notEqual(result.is_error, true, textIn(result));
    const { mediaType, bytes } = imageIn(result);
    assert.equal(mediaType, "image/jpeg");
    assert.match(textIn(result), /resized from 2400×800 to 2000×667 pixels/);
    near(rgbAt(bytes, 400, 300), [0, 255, 255], `cyan (progressive: ${progressive})`);
    near(rgbAt(bytes, 1600, 300), [127, 0, 127], `magenta, half black (progressive: ${progressive})`);
  }
});

test("a CMYK JPEG with an Adobe marker is read as inverted, as Photoshop writes it, YCCK included", async (t) => {
  // The same colours as stored inverted (255 is no ink).
  const inverted = await readThroughModel(t, "adobe.jpg", flatJpegFile(2400, 800, sampling, halves([0, 255, 255, 255], [255, 0, 255, 127]), 0));
  near(rgbAt(imageIn(inverted.result).bytes, 400, 300), [0, 255, 255], "cyan");
  near(rgbAt(imageIn(inverted.result).bytes, 1600, 300), [127, 0, 127], "magenta, half black");
  // YCCK: luma 200 and neutral chroma is inverted CMY of 55 each, ink of 200, light of 55; no black.
  const ycck = await readThroughModel(t, "ycck.jpg", flatJpegFile(2400, 800, sampling, () => [200, 128, 128, 255], 2));
  near(rgbAt(imageIn(ycck.result).bytes, 1000, 300), [55, 55, 55], "YCCK grey");
});

test("a three-component JPEG whose Adobe marker says RGB is not taken for YCbCr", async (t) => {
  const { result } = await readThroughModel(t, "rgb.jpg", flatJpegFile(2400, 800, sampling.slice(0, 3), halves([255, 0, 0], [0, 0, 255]), 0));
  near(rgbAt(imageIn(result).bytes, 400, 300), [255, 0, 0], "red");
  near(rgbAt(imageIn(result).bytes, 1600, 300), [0, 0, 255], "blue");
});

test("a 64-megapixel JPEG is shrunk holding a few rows of it at a time, not the whole picture", async (t) => {
  // Bands of colour changing every MCU column, so that each MCU differs from its neighbour.
  const bytes = flatJpegFile(8000, 8000, sampling.slice(0, 3), (mx, my) => [(mx * 7 + my) % 256, 128 + (mx % 32), 128 - (my % 32)]);
  const { to, peakMb } = await shrinkInChild(t, bytes, "image/jpeg");
  assert.deepEqual(to, { width: 2000, height: 2000 });
  // Its pixels alone, as RGBA, take 256 MB; decoded whole it took over 2 GB.
  assert.ok(peakMb < 250, `peak RSS ${peakMb} MB`);
});

test("a JPEG whose frame header gives it no width is an error saying so", async () => {
  const bytes = flatJpegFile(16, 2400, sampling.slice(0, 3), () => [128, 128, 128]);
  const sof = bytes.indexOf(Buffer.from([0xff, 0xc0]));
  bytes.writeUInt16BE(0, sof + 7);
  const fitted = await fitImage(bytes, "image/jpeg", "thin.jpg", 3_932_160);
  assert.match(fitted.ok ? "sent" : fitted.message, /^thin\.jpg is 0×2400 pixels .*could not be shrunk: it cannot be decoded as a JPEG image \(its frame header gives it no width\)/);
});

test("a 64-megapixel progressive JPEG is shrunk keeping its coefficients, two bytes a sample, not its pixels decoded whole", async (t) => {
  const bytes = flatJpegFile(8000, 8000, sampling.slice(0, 3), (mx, my) => [(mx * 7 + my) % 256, 128 + (mx % 32), 128 - (my % 32)], undefined, true);
  const { to, peakMb } = await shrinkInChild(t, bytes, "image/jpeg");
  assert.deepEqual(to, { width: 2000, height: 2000 });
  // Decoded whole it took 1.5 GB and failed; its coefficients (4:2:0) take 192 MB.
  assert.ok(peakMb < 450, `peak RSS ${peakMb} MB`);
});
