// A phone photo stored sideways, with an EXIF orientation, reaches the model upright once shrunk.
import assert from "node:assert/strict";
import { test } from "node:test";
import jpeg from "jpeg-js";
import { shrinkImage } from "./shrink.ts";
import { jpegOrientation, orient } from "./jpeg-orientation.ts";

/** An APP1 EXIF segment whose IFD0 holds an orientation tag (and one other tag before it). */
function exifSegment(orientation: number, little: boolean): Buffer {
  const tiff = Buffer.alloc(8 + 2 + 2 * 12 + 4);
  tiff.write(little ? "II" : "MM", 0, "latin1");
  const u16 = (value: number, at: number) => (little ? tiff.writeUInt16LE(value, at) : tiff.writeUInt16BE(value, at));
  const u32 = (value: number, at: number) => (little ? tiff.writeUInt32LE(value, at) : tiff.writeUInt32BE(value, at));
  u16(42, 2);
  u32(8, 4);
  u16(2, 8);
  // ImageWidth (0x0100), then Orientation (0x0112), a SHORT.
  u16(0x0100, 10); u16(3, 12); u32(1, 14); u16(4000, 18);
  u16(0x0112, 22); u16(3, 24); u32(1, 26); u16(orientation, 30);
  const body = Buffer.concat([Buffer.from("Exif\0\0", "latin1"), tiff]);
  const head = Buffer.from([0xff, 0xe1, 0, 0]);
  head.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([head, body]);
}

/** A JPEG of `width` × `height`, red on its left half and blue on its right, with the EXIF
 * orientation given (none when undefined). */
function photo(width: number, height: number, orientation?: number, little = true): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    const left = i % width < width / 2;
    data.set(left ? [230, 20, 20, 255] : [20, 20, 230, 255], i * 4);
  }
  const file = jpeg.encode({ width, height, data }, 90).data;
  if (orientation === undefined) return file;
  return Buffer.concat([file.subarray(0, 2), exifSegment(orientation, little), file.subarray(2)]);
}

/** Whether the pixel at (x, y) of the decoded result is mostly red or mostly blue. */
function colourAt(bytes: Uint8Array, x: number, y: number): "red" | "blue" {
  const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true });
  const i = (y * image.width + x) * 4;
  return image.data[i]! > image.data[i + 2]! ? "red" : "blue";
}

test("the EXIF orientation is read in either byte order; a JPEG without one, or no JPEG, is as stored", () => {
  assert.equal(jpegOrientation(photo(16, 8, 6, true)), 6);
  assert.equal(jpegOrientation(photo(16, 8, 8, false)), 8);
  assert.equal(jpegOrientation(photo(16, 8)), 1);
  assert.equal(jpegOrientation(Buffer.from("not a jpeg at all")), 1);
  // A segment cut short is no orientation, not an error.
  assert.equal(jpegOrientation(photo(16, 8, 6).subarray(0, 30)), 1);
});

test("each orientation shows the stored top-left pixel where EXIF says it belongs", () => {
  // A 2 × 3 image whose stored top-left pixel alone is white.
  const data = new Uint8Array(2 * 3 * 4);
  data.set([255, 255, 255, 255], 0);
  const where = (orientation: number) => {
    const shown = orient({ width: 2, height: 3, data }, orientation);
    const i = shown.data.findIndex((v, k) => k % 4 === 0 && v === 255) / 4;
    return { size: `${shown.width}x${shown.height}`, x: i % shown.width, y: Math.floor(i / shown.width) };
  };
  assert.deepEqual(where(1), { size: "2x3", x: 0, y: 0 });
  assert.deepEqual(where(2), { size: "2x3", x: 1, y: 0 });
  assert.deepEqual(where(3), { size: "2x3", x: 1, y: 2 });
  assert.deepEqual(where(4), { size: "2x3", x: 0, y: 2 });
  assert.deepEqual(where(5), { size: "3x2", x: 0, y: 0 });
  assert.deepEqual(where(6), { size: "3x2", x: 2, y: 0 });
  assert.deepEqual(where(7), { size: "3x2", x: 2, y: 1 });
  assert.deepEqual(where(8), { size: "3x2", x: 0, y: 1 });
});

test("a large photo stored sideways is shrunk upright, and its sizes are told as it is shown", async () => {
  const limits = { maxSide: 2000, maxBytes: 3_932_160 };
  // Orientation 6: the stored left half (red) is the top once turned a quarter clockwise.
  const turned = await shrinkImage(photo(3000, 1000, 6), "image/jpeg", limits);
  assert.ok(turned.ok, turned.ok ? "" : turned.reason);
  assert.deepEqual([turned.from, turned.to], [{ width: 1000, height: 3000 }, { width: 667, height: 2000 }]);
  const shown = jpeg.decode(turned.bytes, { useTArray: true });
  assert.deepEqual([shown.width, shown.height], [667, 2000]);
  assert.equal(colourAt(turned.bytes, 333, 100), "red");
  assert.equal(colourAt(turned.bytes, 333, 1900), "blue");
  // Orientation 8 turns the other way: blue on top.
  const other = await shrinkImage(photo(3000, 1000, 8, false), "image/jpeg", limits);
  assert.ok(other.ok);
  assert.equal(colourAt(other.bytes, 333, 100), "blue");
  // Without EXIF, as stored.
  const plain = await shrinkImage(photo(3000, 1000), "image/jpeg", limits);
  assert.ok(plain.ok);
  assert.deepEqual(plain.to, { width: 2000, height: 667 });
  assert.equal(colourAt(plain.bytes, 100, 333), "red");
});
