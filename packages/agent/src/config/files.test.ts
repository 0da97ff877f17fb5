import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configReadsSoFar, readConfigDir, readConfigFile, readConfigJson, readConfigText, statConfig } from "./files.ts";

function temp(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "harness-config-files-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a change to a file or a directory is seen by the next read, even within the same second and at the same size", async (t) => {
  const dir = temp(t);
  const file = join(dir, "CLAUDE.md");
  writeFileSync(file, "alpha");
  assert.equal(await readConfigText(file), "alpha");
  writeFileSync(file, "bravo");
  assert.equal(await readConfigText(file), "bravo");
  assert.deepEqual((await readConfigDir(dir)).map((e) => e.name), ["CLAUDE.md"]);
  writeFileSync(join(dir, "more.md"), "x");
  assert.deepEqual((await readConfigDir(dir)).map((e) => e.name).sort(), ["CLAUDE.md", "more.md"]);
  unlinkSync(file);
  await assert.rejects(readConfigText(file), (error: NodeJS.ErrnoException) => error.code === "ENOENT" && error.message.includes(file));
});

test("errors are those of node:fs: missing (also below a file), a directory read as a file, a file listed as a directory", async (t) => {
  const dir = temp(t);
  writeFileSync(join(dir, "file"), "x");
  mkdirSync(join(dir, "sub"));
  const code = (error: NodeJS.ErrnoException) => error.code;
  await assert.rejects(readConfigFile(join(dir, "nope")), (e: NodeJS.ErrnoException) => code(e) === "ENOENT");
  await assert.rejects(readConfigDir(join(dir, "nope")), (e: NodeJS.ErrnoException) => code(e) === "ENOENT");
  await assert.rejects(statConfig(join(dir, "nope")), (e: NodeJS.ErrnoException) => code(e) === "ENOENT");
  await assert.rejects(readConfigFile(join(dir, "file", "below")), (e: NodeJS.ErrnoException) => code(e) === "ENOENT");
  await assert.rejects(readConfigFile(join(dir, "sub")), (e: NodeJS.ErrnoException) => code(e) === "EISDIR");
  await assert.rejects(readConfigDir(join(dir, "file")), (e: NodeJS.ErrnoException) => code(e) === "ENOTDIR");
  assert.ok((await statConfig(join(dir, "sub"))).isDirectory());
});

test("files and directories that have not changed for a while are not read again; a change is", async (t) => {
  const dir = temp(t);
  const file = join(dir, "settings.json");
  writeFileSync(file, '{"a":1}');
  // Timestamps have a coarse resolution: only what has been still for two seconds is trusted.
  await new Promise((r) => setTimeout(r, 2100));
  await readConfigText(file);
  await readConfigDir(dir);
  const before = configReadsSoFar();
  for (let i = 0; i < 5; i++) {
    assert.equal(await readConfigText(file), '{"a":1}');
    assert.deepEqual((await readConfigDir(dir)).map((e) => e.name), ["settings.json"]);
  }
  assert.equal(configReadsSoFar(), before, "nothing was read again");
  writeFileSync(file, '{"a":2}');
  assert.equal(await readConfigText(file), '{"a":2}');
  assert.equal(configReadsSoFar(), before + 1);
});

test("JSON is parsed once while its file is unchanged, whatever its size, and again once it changes", async (t) => {
  const dir = temp(t);
  const file = join(dir, ".claude.json");
  const big = { projects: { "/p": { hasClaudeMdExternalIncludesApproved: true } }, history: "x".repeat(400 * 1024) };
  writeFileSync(file, `\ufeff${JSON.stringify(big)}`);
  // Only what has been still for two seconds is trusted (see above).
  await new Promise((r) => setTimeout(r, 2100));
  const first = await readConfigJson(file);
  assert.ok(first.kind === "ok" && JSON.stringify(first.value) === JSON.stringify(big), "past the byte-order mark");
  const again = await readConfigJson(file);
  assert.ok(again.kind === "ok" && again.value === first.value, "the same value, not parsed again");
  writeFileSync(file, '{"projects":{}}');
  assert.deepEqual(await readConfigJson(file), { kind: "ok", value: { projects: {} } });
  writeFileSync(file, " \n");
  assert.deepEqual(await readConfigJson(file), { kind: "ok", value: {}, empty: true }, "an empty file holds an empty object");
  writeFileSync(file, '{\n  "a": nope\n}');
  const broken = await readConfigJson(file);
  assert.ok(broken.kind === "error" && /^invalid JSON: .*\(line 2 column 8\)$/.test(broken.message), JSON.stringify(broken));
  assert.deepEqual(await readConfigJson(join(dir, "missing.json")), { kind: "missing" });
  assert.deepEqual(await readConfigJson(join(dir, "missing.json", "below")), { kind: "missing" });
  const unreadable = await readConfigJson(dir);
  assert.ok(unreadable.kind === "error" && unreadable.message.startsWith("cannot read the file: "), JSON.stringify(unreadable));
});

test("an empty directory where a JSON file belongs (the Bash sandbox's stand-in for a missing one) reads as no file", async (t) => {
  const dir = temp(t);
  mkdirSync(join(dir, "settings.json"));
  assert.deepEqual(await readConfigJson(join(dir, "settings.json")), { kind: "missing" });
  writeFileSync(join(dir, "settings.json", "x"), "");
  const read = await readConfigJson(join(dir, "settings.json"));
  assert.equal(read.kind, "error");
  assert.match(read.kind === "error" ? read.message : "", /EISDIR/);
});
