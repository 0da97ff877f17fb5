import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { isWithin, realPathOf } from "./real-paths.ts";
import { tempWorkspace } from "../testing/fixtures.ts";

test("isWithin: the directory itself and what is below it, not its parent, a sibling or a name that starts with ..", () => {
  assert.equal(isWithin("/p", "/p"), true);
  assert.equal(isWithin("/p/a/b", "/p"), true);
  assert.equal(isWithin("/p/..hidden", "/p"), true);
  assert.equal(isWithin("/", "/p"), false);
  assert.equal(isWithin("/pq", "/p"), false);
  assert.equal(isWithin("/q/a", "/p"), false);
  assert.equal(isWithin("/anything", "/"), true);
});

test("realPathOf resolves links as far as the path exists and keeps the missing rest", async (t) => {
  const dir = await tempWorkspace(t);
  const real = realPathOf(dir);
  mkdirSync(path.join(dir, "target"));
  symlinkSync(path.join(dir, "target"), path.join(dir, "link"));
  assert.equal(realPathOf(path.join(dir, "link")), path.join(real, "target"));
  assert.equal(realPathOf(path.join(dir, "link", "new", "file.txt")), path.join(real, "target", "new", "file.txt"));
});
