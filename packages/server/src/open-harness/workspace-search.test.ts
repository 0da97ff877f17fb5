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

/** The longest the event loop went without running a timer while `work` ran. */
async function longestStall(work: () => Promise<unknown>): Promise<number> {
  let last = Date.now();
  let longest = 0;
  const timer = setInterval(() => {
    longest = Math.max(longest, Date.now() - last);
    last = Date.now();
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(longest, Date.now() - last);
}

test("while a slow regular expression or glob is matched, the server's other work goes on; one stuck on a single line ends the search at once", async (t) => {
  const root = await mkdtemp(join(tmpdir(), "harness-search-"));
  t.after(() => rm(root, { recursive: true, force: true }));
  // Each line costs the pattern some milliseconds of backtracking; all of them, far more than the time.
  await writeFile(join(root, "slow.txt"), `${"a".repeat(17)}!\n`.repeat(5000));
  let found: Awaited<ReturnType<typeof searchFiles>> | undefined;
  const slow = await longestStall(async () => (found = await searchFiles(root, { grep: "^(a+)+$", path: "", maxResults: 10, includeIgnored: false, timeMs: 2000 })));
  assert.deepEqual(found, { matches: [], truncated: true, reason: "time_limit" });
  assert.ok(slow < 1000, `the search held everything else for ${slow} ms`);

  await writeFile(join(root, "stuck.txt"), `${"a".repeat(40)}!\n`);
  await rm(join(root, "slow.txt"));
  const started = Date.now();
  const stuck = await longestStall(() => searchFiles(root, { grep: "^(a+)+$", path: "", maxResults: 10, includeIgnored: false, timeMs: 5000 }));
  assert.ok(Date.now() - started < 2500, `a pattern stuck on one line ended the search in ${Date.now() - started} ms, not at the time limit`);
  assert.ok(stuck < 1000, `the stuck pattern held everything else for ${stuck} ms`);

  for (let i = 0; i < 3000; i++) await writeFile(join(root, `${"a".repeat(30)}${i}`), "");
  const globbing = await longestStall(() => searchFiles(root, { glob: `${"a*".repeat(9)}b`, path: "", maxResults: 10, includeIgnored: false, timeMs: 2000 }));
  assert.ok(globbing < 1000, `the glob held everything else for ${globbing} ms`);
});
