import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { callTool, tempWorkspace } from "../testing/fixtures.ts";
import { grepTool } from "./grep.ts";

async function project(t: TestContext) {
  const cwd = await tempWorkspace(t);
  const files: Record<string, string> = {
    "src/app.ts": "import { log } from './log';\nexport function start() {\n  log('Starting');\n  return 1;\n}\n",
    "src/log.ts": "export function log(message: string) {\n  console.log(message);\n}\n",
    "src/util.js": "// TODO: remove\nfunction helper() {}\n",
    "docs/notes.md": "Start here.\nThen log things.\n",
    "node_modules/dep/index.ts": "export function log() {}\n",
    ".git/config": "function log\n",
  };
  let age = 0;
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(cwd, file);
    await fs.mkdir(path.dirname(full), { recursive: true });
    await fs.writeFile(full, content);
    const when = new Date(Date.UTC(2024, 0, 1) - ++age * 1000);
    await fs.utimes(full, when, when);
  }
  await fs.writeFile(path.join(cwd, "src", "image.bin"), Buffer.from("function log\0\0binary"));
  return cwd;
}

test("Grep lists files with matches by default, newest first, skipping dependencies, .git and binaries", async (t) => {
  const cwd = await project(t);
  const out = await callTool(grepTool, { pattern: "function \\w+" }, cwd);
  assert.deepEqual(out, { content: "Found 3 files\nsrc/app.ts\nsrc/log.ts\nsrc/util.js" });
});

test("Grep content mode shows path:line:text, with context and case folding", async (t) => {
  const cwd = await project(t);
  const plain = await callTool(grepTool, { pattern: "log\\(", output_mode: "content" }, cwd);
  assert.equal(plain.content, "src/app.ts:3:  log('Starting');\nsrc/log.ts:1:export function log(message: string) {\nsrc/log.ts:2:  console.log(message);");

  const context = await callTool(grepTool, { pattern: "start", output_mode: "content", "-i": true, "-C": 1, path: "src" }, cwd);
  assert.equal(
    context.content,
    ["src/app.ts-1-import { log } from './log';", "src/app.ts:2:export function start() {", "src/app.ts:3:  log('Starting');", "src/app.ts-4-  return 1;"].join("\n"),
  );

  const separated = await callTool(grepTool, { pattern: "import|return", output_mode: "content", "-A": 0, "-B": 1, path: "src/app.ts", "-n": false }, cwd);
  assert.equal(separated.content, "src/app.ts:import { log } from './log';\n--\nsrc/app.ts-  log('Starting');\nsrc/app.ts:  return 1;");
});

test("Grep filters by glob and type and counts matching lines", async (t) => {
  const cwd = await project(t);
  assert.equal((await callTool(grepTool, { pattern: "log", glob: "*.md" }, cwd)).content, "Found 1 file\ndocs/notes.md");
  assert.equal((await callTool(grepTool, { pattern: "log", glob: "src/**/*.{ts,js}" }, cwd)).content, "Found 2 files\nsrc/app.ts\nsrc/log.ts");
  assert.equal((await callTool(grepTool, { pattern: "log", glob: "!*.ts" }, cwd)).content, "Found 1 file\ndocs/notes.md");
  assert.equal((await callTool(grepTool, { pattern: "function", type: "js" }, cwd)).content, "Found 1 file\nsrc/util.js");
  const count = await callTool(grepTool, { pattern: "log", output_mode: "count" }, cwd);
  assert.equal(count.content, "docs/notes.md:1\nsrc/app.ts:2\nsrc/log.ts:2\n\nFound 5 matching lines in 3 files.");
  const unknownType = await callTool(grepTool, { pattern: "x", type: "cobol" }, cwd);
  assert.equal(unknownType.isError, true);
  assert.match(unknownType.content, /Unknown file type "cobol"\. Known types: .*\bts\b/);
});

test("Grep multiline matches span lines, and head_limit trims results", async (t) => {
  const cwd = await project(t);
  const span = await callTool(grepTool, { pattern: "function log\\(.*?console", multiline: true, output_mode: "content" }, cwd);
  assert.equal(span.content, "src/log.ts:1:export function log(message: string) {\nsrc/log.ts:2:  console.log(message);");
  const noSpan = await callTool(grepTool, { pattern: "function log\\(.*?console" }, cwd);
  assert.match(noSpan.content, /No matches found/);

  const limited = await callTool(grepTool, { pattern: "o", output_mode: "content", head_limit: 2 }, cwd);
  assert.equal(limited.content.split("\n").length, 2);
  const files = await callTool(grepTool, { pattern: "log", head_limit: 1 }, cwd);
  assert.equal(files.content, "Found 3 files (showing the first 1)\nsrc/app.ts");
});

test("Grep reports a bad pattern, a missing path and no matches", async (t) => {
  const cwd = await project(t);
  const bad = await callTool(grepTool, { pattern: "foo(" }, cwd);
  assert.equal(bad.isError, true);
  assert.match(bad.content, /Invalid regular expression "foo\(".*escape special characters/s);
  const missing = await callTool(grepTool, { pattern: "x", path: "nope" }, cwd);
  assert.equal(missing.isError, true);
  assert.match(missing.content, /Path does not exist: nope/);
  const none = await callTool(grepTool, { pattern: "zebra" }, cwd);
  assert.equal(none.isError, undefined);
  assert.match(none.content, /No matches found for "zebra"/);
  const inline = await callTool(grepTool, { pattern: "(?i)STARTING", output_mode: "content" }, cwd);
  assert.equal(inline.content, "src/app.ts:3:  log('Starting');");
});
