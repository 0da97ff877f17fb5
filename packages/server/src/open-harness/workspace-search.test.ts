import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { searchFiles } from "./workspace-search.ts";

test("a regular expression that backtracks for ever is stopped at the time limit, with what was found by then", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "harness-search-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, "a.txt"), "aaaa\n");
  await writeFile(join(root, "b.txt"), `${"a".repeat(40)}!\n`);
  const started = Date.now();
  const found = await searchFiles(root, { grep: "^(a+)+$", path: "", maxResults: 10, includeIgnored: false, timeMs: 300 });
  assert.ok(Date.now() - started < 3000, `stopped in time: ${Date.now() - started} ms`);
  assert.deepEqual(found, { matches: [found.matches[0]], truncated: true, reason: "time_limit" });
  assert.equal(found.matches[0].file.path, "a.txt");
  assert.deepEqual(found.matches[0].line_matches, [{ line_number: 1, content: "aaaa" }]);
});

test("a search whose time is up answers what it found by then; a long line is answered cut short", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "harness-search-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, "long.txt"), `${"x".repeat(5000)}\n`);
  const found = await searchFiles(root, { grep: "x", path: "", maxResults: 10, includeIgnored: false });
  assert.equal(found.matches[0].line_matches![0].content, `${"x".repeat(1000)}…`);
  const none = await searchFiles(root, { glob: "**", path: "", maxResults: 10, includeIgnored: false, timeMs: -1 });
  assert.deepEqual(none, { matches: [], truncated: true, reason: "time_limit" });
});

test("a glob that backtracks for ever is stopped at the time limit; one whose braces make too many patterns is refused", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "harness-search-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  await writeFile(join(root, "a".repeat(60)), "");
  const started = Date.now();
  const found = await searchFiles(root, { glob: `${"a*".repeat(14)}b`, path: "", maxResults: 10, includeIgnored: false, timeMs: 300 });
  assert.ok(Date.now() - started < 3000, `stopped in time: ${Date.now() - started} ms`);
  assert.deepEqual(found, { matches: [], truncated: true, reason: "time_limit" });
  for (const glob of ["{a,b}".repeat(20), "{1..100000}", "{a,{b,c,d}}".repeat(8)]) {
    await assert.rejects(searchFiles(root, { glob, path: "", maxResults: 10, includeIgnored: false }), (error: Error) => {
      assert.match(error.message, /glob: its braces make more than 1024 patterns/);
      return true;
    });
  }
  const some = await searchFiles(root, { glob: "{b,a}{a,c}*", path: "", maxResults: 10, includeIgnored: false });
  assert.equal(some.matches.length, 1, "braces within the limit are taken");
});
