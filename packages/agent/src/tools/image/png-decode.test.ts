import assert from "node:assert/strict";
import { test } from "node:test";
import zlib from "node:zlib";
import { PNG } from "pngjs";
import { decodeImage } from "./decode.ts";
import { pixels, shrinkInChild } from "./test-support.ts";

/** A PNG put together chunk by chunk: `rows` unfiltered (filter byte 0 each) and deflated. */
function handMadePng(width: number, height: number, depth: number, colourType: number, rows: (y: number) => Uint8Array, extra: [string, Buffer][] = []): Buffer {
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length);
    head.write(type, 4, "latin1");
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), body])));
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = depth;
  ihdr[9] = colourType;
  const raw = Buffer.concat(Array.from({ length: height }, (_, y) => Buffer.concat([Buffer.from([0]), rows(y)])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), ...extra.map(([type, body]) => chunk(type, body)), chunk("IDAT", zlib.deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

test("a PNG of each colour type and depth pngjs writes is decoded to the pixels pngjs reads, filters and transparency included", async () => {
  for (const colorType of [0, 2, 4, 6]) {
    for (const bitDepth of [8, 16]) {
      const png = new PNG({ width: 123, height: 77 });
      png.data = pixels(123, 77, true);
      const bytes = PNG.sync.write(png, { colorType, bitDepth, inputColorType: 6, inputHasAlpha: true } as Parameters<typeof PNG.sync.write>[1]);
      const { image } = await decodeImage(bytes, "image/png", 2000);
      assert.deepEqual(Buffer.from(image.data), PNG.sync.read(bytes).data, `colour type ${colorType}, ${bitDepth} bits`);
    }
  }
});

test("a palette PNG of 2 bits and a 1-bit grey PNG are decoded with their tRNS transparency", async () => {
  // Palette: red, green, blue, white; blue half transparent. Each row: indices 0,1,2,3 repeated.
  const palette = handMadePng(8, 2, 2, 3, () => Uint8Array.from([0b00011011, 0b00011011]), [["PLTE", Buffer.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255])], ["tRNS", Buffer.from([255, 255, 128])]]);
  const { image } = await decodeImage(palette, "image/png", 2000);
  assert.deepEqual([...image.data.subarray(0, 16)], [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 128, 255, 255, 255, 255]);
  // Grey: black, white alternating; black is transparent.
  const grey = handMadePng(8, 1, 1, 0, () => Uint8Array.from([0b01010101]), [["tRNS", Buffer.from([0, 0])]]);
  const decoded = await decodeImage(grey, "image/png", 2000);
  assert.deepEqual([...decoded.image.data.subarray(0, 8)], [0, 0, 0, 0, 255, 255, 255, 255]);
});

test("a 64-megapixel PNG is shrunk holding a few rows of it at a time, not the whole picture", async (t) => {
  const colours = Buffer.from(Array.from({ length: 256 * 3 }, (_, i) => (i * 37) % 256));
  const bytes = handMadePng(8000, 8000, 8, 3, (y) => Uint8Array.from({ length: 8000 }, (_, x) => ((x >> 4) + (y >> 4)) % 256), [["PLTE", colours]]);
  const { to, peakMb } = await shrinkInChild(t, bytes, "image/png");
  assert.deepEqual(to, { width: 2000, height: 2000 });
  // Its pixels alone, as RGBA, take 256 MB; decoded whole they took near a gigabyte.
  assert.ok(peakMb < 250, `peak RSS ${peakMb} MB`);
});

test("a PNG whose IHDR, PLTE, IDAT or IEND chunk does not match its CRC is refused naming the chunk; a damaged tRNS is let go, the pixels left opaque", async () => {
  const palette: [string, Buffer][] = [["PLTE", Buffer.from([255, 0, 0, 0, 0, 255])], ["tRNS", Buffer.from([0])]];
  const png = handMadePng(8, 2, 8, 3, () => Uint8Array.from([0, 1, 0, 1, 0, 1, 0, 1]), palette);
  /** `png` with one bit of the `type` chunk's CRC flipped. */
  const damaged = (type: string) => {
    const bytes = Buffer.from(png);
    const at = bytes.indexOf(type, 8, "latin1") - 4;
    bytes[at + 8 + bytes.readUInt32BE(at) + 3]! ^= 1;
    return bytes;
  };
  for (const type of ["IHDR", "PLTE", "IDAT", "IEND"]) {
    await assert.rejects(decodeImage(damaged(type), "image/png", 2000), { message: `its ${type} chunk is damaged (its CRC does not match its bytes)` }, type);
  }
  // As libspng does, an ancillary chunk that fails its CRC is dropped.
  assert.deepEqual([...(await decodeImage(png, "image/png", 2000)).image.data.subarray(0, 8)], [255, 0, 0, 0, 0, 0, 255, 255]);
  assert.deepEqual([...(await decodeImage(damaged("tRNS"), "image/png", 2000)).image.data.subarray(0, 8)], [255, 0, 0, 255, 0, 0, 255, 255]);
  // A chunk cut short before its CRC.
  await assert.rejects(decodeImage(png.subarray(0, -2), "image/png", 2000), { message: "its IEND chunk is cut short" });
});
