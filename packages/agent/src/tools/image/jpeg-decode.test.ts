import assert from "node:assert/strict";
import { test } from "node:test";
import jpeg from "jpeg-js";
import { decodeImage } from "./decode.ts";
import { fitImage } from "./fit-image.ts";
import { flatJpegFile, imageIn, mozJpegFile, pixels, readThroughModel, textIn } from "./test-support.ts";

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

/** A 2400×16 baseline JPEG (wider than the model takes) changed by `edit`. */
function editedJpeg(edit: (bytes: Buffer, sof: number) => Buffer | void): Buffer {
  const bytes = flatJpegFile(2400, 16, [{ h: 2, v: 2 }, { h: 1, v: 1 }, { h: 1, v: 1 }], () => [128, 128, 128]);
  return edit(bytes, bytes.indexOf(Buffer.from([0xff, 0xc0]))) ?? bytes;
}

test("a JPEG of a kind not decoded here (lossless, arithmetic-coded, hierarchical, 12-bit, height after its data) is refused naming the kind, unless it fits as it is", async () => {
  const withMarker = (marker: number) => editedJpeg((bytes, sof) => void (bytes[sof + 1] = marker));
  const cases: [string, Buffer, string][] = [
    ["SOF3", withMarker(0xc3), "a lossless JPEG"],
    ["SOF9", withMarker(0xc9), "an arithmetic-coded JPEG"],
    ["SOF10", withMarker(0xca), "an arithmetic-coded JPEG"],
    ["SOF11", withMarker(0xcb), "a lossless, arithmetic-coded JPEG"],
    ["SOF5", withMarker(0xc5), "a hierarchical JPEG"],
    ["SOF15", withMarker(0xcf), "a hierarchical, lossless, arithmetic-coded JPEG"],
    // A DHP segment (the whole picture's size) before a first frame at a lower resolution.
    ["DHP", editedJpeg((bytes, sof) => Buffer.concat([bytes.subarray(0, sof), Buffer.from([0xff, 0xde, 0, 11, 8, 0, 16, 0x09, 0x60, 1, 1, 0x11, 0]), bytes.subarray(sof)])), "a hierarchical JPEG"],
    ["12-bit", editedJpeg((bytes, sof) => void (bytes[sof + 4] = 12)), "a JPEG of 12-bit samples"],
    ["12-bit progressive", editedJpeg((bytes, sof) => void ((bytes[sof + 1] = 0xc2), (bytes[sof + 4] = 12))), "a JPEG of 12-bit samples"],
    [
      "DNL",
      editedJpeg((bytes, sof) => {
        bytes.writeUInt16BE(0, sof + 5);
        // The height in a DNL segment after the scan's data, before the end of the image.
        return Buffer.concat([bytes.subarray(0, -2), Buffer.from([0xff, 0xdc, 0, 4, 0, 16, 0xff, 0xd9])]);
      }),
      "a JPEG whose height is given only after its image data \\(in a DNL marker\\)",
    ],
  ];
  for (const [kind, bytes, named] of cases) {
    const fitted = await fitImage(bytes, "image/jpeg", "odd.jpg", 3_932_160);
    const message = fitted.ok ? "sent" : fitted.message;
    assert.match(message, new RegExp(`^odd\\.jpg is 2400×\\d+ pixels .*could not be shrunk: it cannot be decoded as a JPEG image \\(it is ${named}, which is not supported for resizing; convert it to PNG or to a baseline JPEG first\\)\\.$`), kind);
  }
  // One the model takes as it is is sent without being decoded.
  const small = withMarker(0xc9);
  small.writeUInt16BE(800, small.indexOf(Buffer.from([0xff, 0xc9])) + 7);
  const fitted = await fitImage(small, "image/jpeg", "small.jpg", 3_932_160);
  assert.ok(fitted.ok && Buffer.from(fitted.block.source.data, "base64").equals(small), fitted.ok ? "resized" : fitted.message);
});
