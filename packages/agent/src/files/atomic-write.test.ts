import assert from "node:assert/strict";
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { writeFileAtomically } from "./atomic-write.ts";

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), "atomic-write-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a symbolic link stays a link, and its target gets the new text", (t) => {
  const dir = tempDir(t);
  const target = join(dir, "dotfiles", "settings.json");
  mkdirSync(join(dir, "dotfiles"));
  writeFileSync(target, "old");
  symlinkSync(target, join(dir, "settings.json"));
  writeFileAtomically(join(dir, "settings.json"), "new");
  assert.ok(lstatSync(join(dir, "settings.json")).isSymbolicLink());
  assert.equal(readlinkSync(join(dir, "settings.json")), target);
  assert.equal(readFileSync(target, "utf8"), "new");
  assert.deepEqual(readdirSync(join(dir, "dotfiles")), ["settings.json"], "no temporary file is left");
});

test("an existing file keeps its mode; a new one gets the mode asked for", (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "kept"), "old");
  chmodSync(join(dir, "kept"), 0o640);
  writeFileAtomically(join(dir, "kept"), "new", { newMode: 0o600 });
  assert.equal(statSync(join(dir, "kept")).mode & 0o777, 0o640);
  writeFileAtomically(join(dir, "fresh"), "new", { newMode: 0o600 });
  assert.equal(statSync(join(dir, "fresh")).mode & 0o777, 0o600);
  assert.equal(readFileSync(join(dir, "fresh"), "utf8"), "new");
});

test("a write that fails leaves what was there as it was, and no temporary file", (t) => {
  const dir = tempDir(t);
  // A directory in the way of the rename: the temporary file is written, the rename refused.
  mkdirSync(join(dir, "busy"));
  writeFileSync(join(dir, "busy", "inside"), "old");
  assert.throws(() => writeFileAtomically(join(dir, "busy"), "new"), /EISDIR|directory/);
  assert.equal(readFileSync(join(dir, "busy", "inside"), "utf8"), "old");
  assert.deepEqual(readdirSync(dir), ["busy"]);
});

test("a file of another owner keeps its owner and group", { skip: process.getuid?.() !== 0 && "needs root, to give the file another owner" }, (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, "theirs"), "old", { mode: 0o600 });
  chownSync(join(dir, "theirs"), 4321, 4322);
  writeFileAtomically(join(dir, "theirs"), "new");
  const after = statSync(join(dir, "theirs"));
  assert.deepEqual([after.uid, after.gid, after.mode & 0o777, readFileSync(join(dir, "theirs"), "utf8")], [4321, 4322, 0o600, "new"]);
});
