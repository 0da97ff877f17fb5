import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { callTool, tempWorkspace } from "../testing/fixtures.ts";
import { globTool } from "./glob.ts";

async function tree(t: TestContext, files: Record<string, number>) {
  const cwd = await tempWorkspace(t);
  for (const [file, ageSeconds] of Object.entries(files)) {
    const full = path.join(cwd, file);
    await fs.mkdir(path.dirname(full), { recursive: true });
    await fs.writeFile(full, file);
    const when = new Date(Date.UTC(2024, 0, 1) - ageSeconds * 1000);
    await fs.utimes(full, when, when);
  }
  return cwd;
}

test("Glob lists matching files, newest first, skipping node_modules and .git", async (t) => {
  const cwd = await tree(t, {
    "src/old.ts": 300,
    "src/new.ts": 10,
    "src/deep/mid.ts": 100,
    "src/readme.md": 1,
    "node_modules/pkg/index.ts": 0,
    ".git/hooks/x.ts": 0,
  });
  const out = await callTool(globTool, { pattern: "**/*.ts" }, cwd);
  assert.deepEqual(out, { content: "src/new.ts\nsrc/deep/mid.ts\nsrc/old.ts" });

  const inDir = await callTool(globTool, { pattern: "*.ts", path: "src" }, cwd);
  assert.deepEqual(inDir, { content: "src/new.ts\nsrc/old.ts" });

  const named = await callTool(globTool, { pattern: "node_modules/**/*.ts" }, cwd);
  assert.deepEqual(named, { content: "node_modules/pkg/index.ts" });
});

test("Glob caps the list at 100 files and says how many matched", async (t) => {
  const files: Record<string, number> = {};
  for (let i = 0; i < 130; i++) files[`f${String(i).padStart(3, "0")}.txt`] = i;
  const cwd = await tree(t, files);
  const out = await callTool(globTool, { pattern: "*.txt" }, cwd);
  const lines = out.content.split("\n");
  assert.equal(lines.length, 101);
  assert.equal(lines[0], "f000.txt");
  assert.equal(lines[99], "f099.txt");
  assert.match(lines[100], /Showing the 100 most recently modified of 130 matching files/);
});

test("Glob reports no matches, a missing directory and a file given as path", async (t) => {
  const cwd = await tree(t, { "a.txt": 0 });
  assert.match((await callTool(globTool, { pattern: "*.rs" }, cwd)).content, /No files found matching \*\.rs/);
  const missing = await callTool(globTool, { pattern: "*", path: "nowhere" }, cwd);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /Directory does not exist: nowhere/);
  const file = await callTool(globTool, { pattern: "*", path: "a.txt" }, cwd);
  assert.equal(file.isError, true);
  assert.match(file.content, /is a file, not a directory/);
});
