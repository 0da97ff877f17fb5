import assert from "node:assert/strict";
import fs from "node:fs/promises";
import path from "node:path";
import { test, type TestContext } from "node:test";
import { tempWorkspace } from "../../testing/fixtures.ts";
import type { Tool } from "../../types.ts";
import { createGrepTool, findRipgrep, grepTool } from "./grep.ts";
import { age, callWithState, writeTree } from "../test-helpers.ts";

const call = (tool: Tool, input: Record<string, unknown>, cwd: string) => callWithState(tool, input, cwd, undefined);

/** A small git project: .git, a .gitignore'd node_modules, a hidden directory and a binary file. */
async function project(t: TestContext) {
  const cwd = await tempWorkspace(t);
  const files: Record<string, string> = {
    "src/app.ts": "import { log } from '../log';\nexport function start() {\n  log('Starting');\n  return 1;\n}\n",
    "src/log.ts": "export function log(message: string) {\n  console.log(message);\n}\n",
    "src/util.js": "// TODO: remove\nfunction helper() {}\n",
    "docs/notes.md": "Start here.\nThen log things.\n",
    ".config/settings.json": '{ "log": "verbose" }\n',
    "node_modules/dep/index.ts": "export function log() {}\n",
    ".git/config": "function log\n",
    ".gitignore": "node_modules/\n",
  };
  await writeTree(cwd, files);
  let n = 0;
  for (const file of Object.keys(files)) await age(path.join(cwd, file), ++n);
  await fs.writeFile(path.join(cwd, "src", "image.bin"), Buffer.from("function log\0\0binary"));
  return cwd;
}

test("ripgrep is installed, so Grep runs on it", async () => {
  assert.ok(await findRipgrep(), "@vscode/ripgrep's binary was not found");
});

test("Grep with a line break in its pattern says to set multiline, the parameter it has", async (t) => {
  const cwd = await project(t);
  const out = await call(grepTool, { pattern: "hello\nworld" }, cwd);
  assert.equal(out.isError, true);
  assert.match(out.content, /contains a line break, which matches only across lines: set multiline: true/);
});

const engines: [string, Tool][] = [
  ["ripgrep", grepTool],
  ["the JavaScript fallback", createGrepTool({ rgPath: null })],
];

for (const [engine, grep] of engines) {
  test(`Grep (${engine}) lists files with matches newest first, with hidden files, without .git, ignored dependencies and binaries`, async (t) => {
    const cwd = await project(t);
    const out = await call(grep, { pattern: "function \\w+" }, cwd);
    assert.deepEqual(out, { content: "Found 3 files\nsrc/app.ts\nsrc/log.ts\nsrc/util.js" });
    const hidden = await call(grep, { pattern: "verbose" }, cwd);
    assert.equal(hidden.content, "Found 1 file\n.config/settings.json");
  });

  test(`Grep (${engine}) content mode shows path:line:text, with context and case folding`, async (t) => {
    const cwd = await project(t);
    const plain = await call(grep, { pattern: "log\\(", output_mode: "content" }, cwd);
    assert.equal(plain.content, "src/app.ts:3:  log('Starting');\nsrc/log.ts:1:export function log(message: string) {\nsrc/log.ts:2:  console.log(message);");

    const context = await call(grep, { pattern: "start", output_mode: "content", "-i": true, "-C": 1, path: "src" }, cwd);
    assert.equal(
      context.content,
      ["src/app.ts-1-import { log } from '../log';", "src/app.ts:2:export function start() {", "src/app.ts:3:  log('Starting');", "src/app.ts-4-  return 1;"].join("\n"),
    );

    const separated = await call(grep, { pattern: "import|return", output_mode: "content", "-A": 0, "-B": 1, path: "src/app.ts", "-n": false }, cwd);
    assert.equal(separated.content, "src/app.ts:import { log } from '../log';\n--\nsrc/app.ts-  log('Starting');\nsrc/app.ts:  return 1;");

    const acrossFiles = await call(grep, { pattern: "^export", output_mode: "content", "-A": 1, path: "src" }, cwd);
    assert.equal(
      acrossFiles.content,
      ["src/app.ts:2:export function start() {", "src/app.ts-3-  log('Starting');", "--", "src/log.ts:1:export function log(message: string) {", "src/log.ts-2-  console.log(message);"].join("\n"),
    );
  });

  test(`Grep (${engine}) filters by glob and type and counts matching lines`, async (t) => {
    const cwd = await project(t);
    assert.equal((await call(grep, { pattern: "log", glob: "*.md" }, cwd)).content, "Found 1 file\ndocs/notes.md");
    assert.equal((await call(grep, { pattern: "log", glob: "src/**/*.{ts,js}" }, cwd)).content, "Found 2 files\nsrc/app.ts\nsrc/log.ts");
    assert.equal((await call(grep, { pattern: "log", glob: "!*.ts" }, cwd)).content, "Found 2 files\ndocs/notes.md\n.config/settings.json");
    assert.equal((await call(grep, { pattern: "log|TODO", glob: "*.md *.js" }, cwd)).content, "Found 2 files\nsrc/util.js\ndocs/notes.md");
    assert.equal((await call(grep, { pattern: "function", type: "js" }, cwd)).content, "Found 1 file\nsrc/util.js");
    const count = await call(grep, { pattern: "log", output_mode: "count", path: "src" }, cwd);
    assert.equal(count.content, "src/app.ts:2\nsrc/log.ts:2\n\nFound 4 matching lines in 2 files.");
    const unknownType = await call(grep, { pattern: "x", type: "cobol" }, cwd);
    assert.equal(unknownType.isError, true);
    assert.match(unknownType.content, /Unknown file type "cobol"\. .*\bts\b.*Or use glob instead/);
  });

  test(`Grep (${engine}) leaves out the files the run's deny rules keep from it, with context lines and paging around them`, async (t) => {
    const cwd = await project(t);
    const denied = (tool: string, file: string) => tool === "Grep" && file === path.join(cwd, "src", "log.ts");
    const run = (input: Record<string, unknown>) => grep.execute(input, { cwd, signal: new AbortController().signal, toolUseId: "toolu_test", denied });
    const lines = await run({ pattern: "log", output_mode: "content", path: "src", "-A": 1 });
    assert.equal(lines.content, ["src/app.ts:1:import { log } from '../log';", "src/app.ts-2-export function start() {", "src/app.ts:3:  log('Starting');", "src/app.ts-4-  return 1;"].join("\n"));
    const paged = await run({ pattern: "log", output_mode: "content", path: "src", offset: 1 });
    assert.equal(paged.content, "src/app.ts:3:  log('Starting');");
    assert.equal((await run({ pattern: "function" })).content, "Found 2 files\nsrc/app.ts\nsrc/util.js");
    assert.equal((await run({ pattern: "log", output_mode: "count", path: "src" })).content, "src/app.ts:2\n\nFound 2 matching lines in 1 file.");
  });

  test(`Grep (${engine}) multiline matches span lines; head_limit and offset page through results`, async (t) => {
    const cwd = await project(t);
    const span = await call(grep, { pattern: "function log\\(.*?console", multiline: true, output_mode: "content" }, cwd);
    assert.equal(span.content, "src/log.ts:1:export function log(message: string) {\nsrc/log.ts:2:  console.log(message);");
    const noSpan = await call(grep, { pattern: "function log\\(.*?console" }, cwd);
    assert.match(noSpan.content, /No matches found/);

    const all = (await call(grep, { pattern: "o", output_mode: "content", path: "src" }, cwd)).content.split("\n");
    const first = await call(grep, { pattern: "o", output_mode: "content", path: "src", head_limit: 2 }, cwd);
    assert.equal(first.content, `${all.slice(0, 2).join("\n")}\n\n(More results follow. Call Grep with offset 2 to see them.)`);
    const second = await call(grep, { pattern: "o", output_mode: "content", path: "src", head_limit: 2, offset: 2 }, cwd);
    assert.ok(second.content.startsWith(all.slice(2, 4).join("\n")), second.content);
    const past = await call(grep, { pattern: "o", output_mode: "content", path: "src", offset: 100 }, cwd);
    assert.match(past.content, /No results at offset 100/);

    const files = await call(grep, { pattern: "log", head_limit: 1 }, cwd);
    assert.equal(files.content, "Found 4 files (showing the first 1)\nsrc/app.ts\n\n(3 more files not shown; call Grep with offset 1 to see the next ones.)");
    const rest = await call(grep, { pattern: "log", head_limit: 2, offset: 1 }, cwd);
    assert.equal(rest.content, "Found 4 files (showing 2-3)\nsrc/log.ts\ndocs/notes.md\n\n(1 more files not shown; call Grep with offset 3 to see the next ones.)");
  });

  test(`Grep (${engine}) reports a bad pattern, a missing path and no matches`, async (t) => {
    const cwd = await project(t);
    const bad = await call(grep, { pattern: "foo(" }, cwd);
    assert.equal(bad.isError, true);
    assert.match(bad.content, /Invalid regular expression "foo\(".*escape special characters/s);
    const missing = await call(grep, { pattern: "x", path: "nope" }, cwd);
    assert.equal(missing.isError, true);
    assert.match(missing.content, /Path does not exist: nope/);
    const none = await call(grep, { pattern: "zebra" }, cwd);
    assert.equal(none.isError, undefined);
    assert.match(none.content, /No matches found for "zebra"/);
    const inline = await call(grep, { pattern: "(?i)STARTING", output_mode: "content" }, cwd);
    assert.equal(inline.content, "src/app.ts:3:  log('Starting');");
    const lookbehind = await call(grep, { pattern: "(?<=console\\.)log", output_mode: "content" }, cwd);
    assert.equal(lookbehind.content, "src/log.ts:2:  console.log(message);");
    const dash = await call(grep, { pattern: "-i", path: "src" }, cwd);
    assert.match(dash.content, /No matches found/);
  });

  test(`Grep (${engine}) caps long results and pages through a tree of more than 1,000 files`, async (t) => {
    const cwd = await tempWorkspace(t);
    const files: Record<string, string> = {};
    for (let i = 0; i < 1200; i++) files[`d${i % 12}/f${String(i).padStart(4, "0")}.txt`] = `header\nneedle ${i} ${"x".repeat(30)}\n`;
    await writeTree(cwd, files);

    const listed = await call(grep, { pattern: "needle" }, cwd);
    const lines = listed.content.split("\n");
    assert.equal(lines[0], "Found 1200 files (showing the first 500)");
    assert.equal(lines.filter((l) => l.endsWith(".txt")).length, 500);
    assert.match(listed.content, /\(700 more files not shown: results are capped\. .* offset 500 to see the next ones\.\)$/);
    const seen = new Set(lines.filter((l) => l.endsWith(".txt")));
    for (const offset of [500, 1000]) {
      const page = await call(grep, { pattern: "needle", offset }, cwd);
      for (const line of page.content.split("\n").filter((l) => l.endsWith(".txt"))) seen.add(line);
      if (offset === 1000) assert.match(page.content, /^Found 1200 files \(showing 1001-1200\)\n/);
    }
    assert.equal(seen.size, 1200);

    const counted = await call(grep, { pattern: "needle|header", output_mode: "count" }, cwd);
    assert.match(counted.content, /\n\nFound 2400 matching lines in 1200 files \(showing the first 500\)\.\n\n\(700 more counts not shown/);

    const content = await call(grep, { pattern: "needle", output_mode: "content" }, cwd);
    assert.ok(content.content.length <= 30_000, `content is ${content.content.length} characters`);
    const cut = /Results cut short to fit the output limit; .* call Grep with offset (\d+) to continue\.\)$/.exec(content.content);
    assert.ok(cut, content.content.slice(-400));
    const shown = content.content.split("\n\n")[0].split("\n");
    assert.equal(shown.length, Number(cut[1]));
    const next = await call(grep, { pattern: "needle", output_mode: "content", offset: shown.length, head_limit: 3 }, cwd);
    const nextLines = next.content.split("\n\n")[0].split("\n");
    assert.equal(nextLines.length, 3);
    assert.ok(!shown.includes(nextLines[0]));
    const tail = await call(grep, { pattern: "needle", output_mode: "content", offset: 1195, head_limit: 10 }, cwd);
    assert.equal(tail.content.split("\n").length, 5, tail.content);
  });
}

test("Grep on ripgrep skips what .gitignore ignores in a git repository", async (t) => {
  const cwd = await project(t);
  await writeTree(cwd, { "dist/bundle.js": "function log() {}\n", "src/.gitignore": "generated.ts\n", "src/generated.ts": "function log() {}\n" });
  await fs.appendFile(path.join(cwd, ".gitignore"), "dist/\n");
  const out = await call(grepTool, { pattern: "function log" }, cwd);
  assert.equal(out.content, "Found 1 file\nsrc/log.ts");
});
