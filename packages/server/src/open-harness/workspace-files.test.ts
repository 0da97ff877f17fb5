import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { listFiles, openFile } from "./workspace-files.ts";

// A run may set any time on its files (`touch -d @100000000000000`): a file system that keeps it
// (tmpfs, btrfs, XFS; ext4 caps it at 2446) gives one no Date holds.
const FAR = 1e14;

test("a file whose time no date holds is listed and read, at the latest date there is; the others with it", async (t) => {
  const base = "/dev/shm";
  if (!existsSync(base)) return t.skip("no tmpfs at /dev/shm");
  const root = await mkdtemp(join(base, "harness-files-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, "far.txt"), "far");
  await writeFile(join(root, "near.txt"), "near");
  await utimes(join(root, "far.txt"), FAR, FAR);
  if (statSync(join(root, "far.txt")).mtimeMs !== FAR * 1000) return t.skip("/dev/shm caps file times");

  const { files } = await listFiles(root, "", false);
  assert.deepEqual(files.map((f) => [f.path, f.modified_at]), [["far.txt", "+275760-09-13T00:00:00.000Z"], ["near.txt", statSync(join(root, "near.txt")).mtime.toISOString()]]);
  const { handle, info } = await openFile(root, "far.txt");
  await handle.close();
  assert.equal(info.modified_at, "+275760-09-13T00:00:00.000Z");
});
