import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { callTool, tempWorkspace } from "../../testing/fixtures.ts";
import { imageSize } from "./size.ts";
import { readTool } from "../read.ts";

/** The first bytes of images of `width` × `height`, as far as their headers go. */
const png = (width: number, height: number) => {
  const header = Buffer.alloc(24);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(header);
  header.write("IHDR", 12, "latin1");
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return header;
};
const gif = (width: number, height: number) => {
  const header = Buffer.alloc(10);
  header.write("GIF89a", 0, "latin1");
  header.writeUInt16LE(width, 6);
  header.writeUInt16LE(height, 8);
  return header;
};
/** SOI, an APP0 segment to skip, then SOF2 (progressive). */
const jpeg = (width: number, height: number) => {
  const sof = Buffer.from([0xff, 0xc2, 0, 11, 8, 0, 0, 0, 0, 3, 1]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0x4a, 0x46]), sof]);
};
const webp = (width: number, height: number) => {
  const header = Buffer.alloc(30);
  header.write("RIFF", 0, "latin1");
  header.write("WEBPVP8X", 8, "latin1");
  header.writeUIntLE(width - 1, 24, 3);
  header.writeUIntLE(height - 1, 27, 3);
  return header;
};

test("an image's size is read from its header, for each type Read shows", () => {
  assert.deepEqual(imageSize(png(9000, 2), "image/png"), { width: 9000, height: 2 });
  assert.deepEqual(imageSize(gif(320, 200), "image/gif"), { width: 320, height: 200 });
  assert.deepEqual(imageSize(jpeg(1024, 768), "image/jpeg"), { width: 1024, height: 768 });
  assert.deepEqual(imageSize(webp(4000, 9001), "image/webp"), { width: 4000, height: 9001 });
  assert.equal(imageSize(Buffer.from([0xff, 0xd8, 0xff]), "image/jpeg"), undefined, "a header cut short");
});

test("Read refuses an image too large to decode, of any type, naming the limit", async (t) => {
  const cwd = await tempWorkspace(t);
  await fs.writeFile(path.join(cwd, "huge.png"), png(20000, 20000));
  const huge = await callTool(readTool, { file_path: "huge.png" }, cwd);
  assert.equal(huge.isError, true);
  assert.match(huge.content, /^huge\.png is 20000×20000 pixels \(24 bytes\), more than the model takes and too large to shrink here \(at most 67 megapixels\)/);
  await fs.writeFile(path.join(cwd, "wide.gif"), gif(65000, 2000));
  assert.match((await callTool(readTool, { file_path: "wide.gif" }, cwd)).content, /^wide\.gif is 65000×2000 pixels \(10 bytes\), more than the model takes and too large to shrink here/);
  await fs.writeFile(path.join(cwd, "tall.webp"), webp(9000, 9000));
  assert.match((await callTool(readTool, { file_path: "tall.webp" }, cwd)).content, /^tall\.webp is 9000×9000 pixels \(30 bytes\), more than the model takes and too large to shrink here/);
});
