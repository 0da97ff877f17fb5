import { test } from "node:test";
import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { ApiError } from "./errors.ts";
import { readZip } from "./zip-reader.ts";
import { zipOf } from "./zip-writer.ts";

async function zipped(files: Record<string, string>): Promise<Buffer> {
  const entries = Object.entries(files).map(([name, text]) => ({ name, modified: new Date(), mode: 0o100644, ...(!name.endsWith("/") && { data: async () => Readable.from([Buffer.from(text)]) }) }));
  const chunks: Uint8Array[] = [];
  for await (const chunk of zipOf(entries)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const refusal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof ApiError);
    return [error.status, error.message];
  }
  assert.fail("not refused");
};

test("an archive the server writes reads back file by file, folders left out", async () => {
  const files = readZip(await zipped({ "deploy/": "", "deploy/SKILL.md": "---\nname: deploy\n---\nShip it.", "deploy/run.sh": "echo hi" }), "bundle", 10, 1000, "skills.register");
  assert.deepEqual(files.map((f) => [f.name, f.data.toString()]), [["deploy/SKILL.md", "---\nname: deploy\n---\nShip it."], ["deploy/run.sh", "echo hi"]]);
});

test("what is not a ZIP, or unpacks past the limits, is refused naming the upload", async () => {
  const [status, message] = refusal(() => readZip(Buffer.from("not a zip at all, just some text that goes on"), "bundle", 10, 1000, "agents.import"));
  assert.equal(status, 400);
  assert.match(message as string, /^bundle: not a ZIP archive/);
  const big = await zipped({ "a.txt": "x".repeat(5000) });
  assert.equal(refusal(() => readZip(big, "bundle", 10, 1000, "agents.import"))[0], 413);
  const two = await zipped({ a: "1", b: "2" });
  assert.equal(refusal(() => readZip(two, "bundle", 1, 1000, "agents.import"))[0], 413);
  // A file whose directory claims it small but which inflates larger is refused, not inflated.
  const bomb = await zipped({ "a.txt": "y".repeat(100) });
  const lying = Buffer.from(bomb);
  const central = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  lying.writeUInt32LE(10, central + 24);
  assert.equal(refusal(() => readZip(lying, "bundle", 10, 1000, "agents.import"))[0], 400);
});
