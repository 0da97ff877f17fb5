import { test } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { zipOf } from "./zip-writer.ts";

test("an archive left after a file's header is written closes that file", async () => {
  const source = Readable.from([Buffer.from("content")]);
  const archive = zipOf([{ name: "a.txt", modified: new Date(), mode: 0o100644, data: async () => source }]);
  const header = await archive.next();
  assert.equal(Buffer.from(header.value as Uint8Array).readUInt32LE(0), 0x04034b50, "the file's local header");
  await archive.return(undefined);
  assert.equal(source.destroyed, true, "the file's stream is closed");
});
