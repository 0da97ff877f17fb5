import { test } from "node:test";
import assert from "node:assert/strict";
import { open, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { contentTypeOf, mimeTypeOf } from "./file-types.ts";
import { testDir } from "../test-helpers.ts";

test("a workspace file's type: by its extension (a .ts file is TypeScript), else text or binary by its first bytes", async (t) => {
  const dir = await testDir(t);
  const files: [string, string | Uint8Array, string][] = [
    ["main.ts", "export {}", "text/typescript"],
    ["README", "plain words, ünïcode", "text/plain"],
    ["blob", new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1]), "application/octet-stream"],
    ["latin1", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x61]), "application/octet-stream"],
    ["empty", "", "text/plain"],
  ];
  for (const [name, content, type] of files) {
    await writeFile(join(dir, name), content);
    const file = await open(join(dir, name));
    try {
      assert.equal(await mimeTypeOf(name, file), type, name);
    } finally {
      await file.close();
    }
    assert.equal(await mimeTypeOf(name, typeof content === "string" ? Buffer.from(content) : content), type, `${name}, as bytes`);
  }
  assert.equal(contentTypeOf("application/json"), "application/json; charset=utf-8");
  assert.equal(contentTypeOf("image/png"), "image/png");
});
