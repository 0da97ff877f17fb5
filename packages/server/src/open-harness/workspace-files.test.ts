import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError } from "./errors.ts";
import { listFiles, makeDirectory, openFile, writeFileAt } from "./workspace-files.ts";

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

test("a workspace not there is made for a write only while its session is: once it is gone, the write is refused as it is, and nothing is left", async (t) => {
  const base = await mkdtemp(join(tmpdir(), "harness-files-"));
  t.after(() => rm(base, { recursive: true, force: true }));
  const root = join(base, "workspaces", "alice", "s1");
  const gone = async () => {
    throw new ApiError(404, "session_not_found", 'no session "s1"');
  };
  await assert.rejects(writeFileAt(root, "docs/a.txt", Buffer.from("a"), true, gone), { code: "session_not_found" });
  await assert.rejects(makeDirectory(root, "docs", gone), { code: "session_not_found" });
  assert.ok(!existsSync(root), "the workspace is not left made");
  const there = async () => {};
  const { file } = await writeFileAt(root, "docs/a", Buffer.from("text"), true, there);
  assert.deepEqual([file.path, file.size_bytes, file.mime_type], ["docs/a", 4, "text/plain"]);
  // Once there, it is its session's deletion that removes it, with what is written meanwhile.
  assert.equal((await writeFileAt(root, "b", new Uint8Array([0, 1]), true, gone)).file.mime_type, "application/octet-stream");
});

test("a socket in the workspace is left out of its list, and refused naming the path when it is read or listed", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "harness-files-"));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(join(root, "daemon.sock"), resolve));
  t.after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(root, { recursive: true, force: true });
  });
  await writeFile(join(root, "notes"), "words");
  const { files } = await listFiles(root, "", false);
  assert.deepEqual(files.map((f) => [f.path, f.mime_type]), [["notes", "text/plain"]]);
  await assert.rejects(openFile(root, "daemon.sock"), { status: 400, message: /"daemon\.sock" is a socket/ });
  await assert.rejects(listFiles(root, "daemon.sock", false), { status: 400, message: /"daemon\.sock" is a socket/ });
});
