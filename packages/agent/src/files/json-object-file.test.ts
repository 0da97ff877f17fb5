import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { JsonObjectFileError, readJsonObjectFile } from "./json-object-file.ts";

test("a file to be changed: missing is none, blank is {}, a byte-order mark is skipped, anything but an object is refused naming the file", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "json-object-file-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  assert.equal(readJsonObjectFile(join(dir, "missing.json")), undefined);
  assert.deepEqual(readJsonObjectFile(file("blank.json", " \n"))?.value, {});
  assert.deepEqual(readJsonObjectFile(file("bom.json", '\uFEFF{"a": 1}'))?.value, { a: 1 });
  const list = file("list.json", "[1]");
  assert.throws(() => readJsonObjectFile(list), (error: unknown) => error instanceof JsonObjectFileError && error.message === `${list} does not hold a JSON object; it was left as it is`);
  const broken = file("broken.json", '{\n  "a": 1,\n}');
  assert.throws(() => readJsonObjectFile(broken), (error: unknown) => error instanceof JsonObjectFileError && /^is not valid JSON \(.*line 3 column 1\)\); it was left as it is$/.test(error.reason));
});
