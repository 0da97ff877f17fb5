import assert from "node:assert/strict";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { makeDirs, makeDirsSync } from "./make-dirs.ts";

for (const [name, make] of [
  ["makeDirs", makeDirs],
  ["makeDirsSync", async (dir: string, mode?: number) => makeDirsSync(dir, mode)],
] as const) {
  test(`${name} makes missing parents with the mode, and accepts a directory that exists`, async () => {
    const root = await mkdtemp(join(tmpdir(), "make-dirs-"));
    try {
      const deep = join(root, "a", "b", "c");
      await make(deep, 0o700);
      assert.equal(statSync(deep).mode & 0o777, 0o700);
      assert.equal(statSync(join(root, "a")).mode & 0o777, 0o700);
      await make(deep);
      await make(root);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  test(`${name} fails on a file in the way`, async () => {
    const root = await mkdtemp(join(tmpdir(), "make-dirs-"));
    try {
      writeFileSync(join(root, "file"), "x");
      await assert.rejects(make(join(root, "file")), { code: "EEXIST" });
      await assert.rejects(make(join(root, "file", "below")), { code: "ENOTDIR" });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  // Node's own recursive mkdir never returns for these.
  test(`${name} ends with an error for a missing path under /proc`, { skip: !existsSync("/proc/self") }, async () => {
    await assert.rejects(make("/proc/harness-nowhere/below"), { code: "ENOENT" });
  });
}
