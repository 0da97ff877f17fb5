import { test } from "node:test";
import assert from "node:assert/strict";
import { isTextType, sizeText } from "./workspace-files.ts";

test("a file's size reads in bytes, then KB and MB", () => {
  assert.equal(sizeText(0), "0 B");
  assert.equal(sizeText(1023), "1023 B");
  assert.equal(sizeText(1536), "1.5 KB");
  assert.equal(sizeText(1024 * 1024 + 1), "1.0 MB");
});

test("text is what the server types as text; anything else is bytes, not shown", () => {
  for (const type of ["text/plain", "text/typescript; charset=utf-8", "application/json", "image/svg+xml"]) assert.equal(isTextType(type), true, type);
  for (const type of ["application/octet-stream", "image/png", "application/zip", "application/jsonp", undefined]) assert.equal(isTextType(type), false, String(type));
});
