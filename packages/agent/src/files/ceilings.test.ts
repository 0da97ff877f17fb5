import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ceilingDirectories, parentBelowCeilings } from "./ceilings.ts";
import { findProjectRoot } from "../harness/setup/project-root.ts";

test("GIT_CEILING_DIRECTORIES is read as git reads it: absolute paths only, and a search does not go up into one", async (t) => {
  assert.deepEqual(ceilingDirectories({ GIT_CEILING_DIRECTORIES: "/a/b/:relative::/c" }), ["/a/b", "/c"]);
  assert.deepEqual(ceilingDirectories({}), []);
  assert.equal(parentBelowCeilings("/a/b/c", ["/a/b"]), undefined);
  assert.equal(parentBelowCeilings("/a/b/c/d", ["/a/b"]), "/a/b/c");
  assert.equal(parentBelowCeilings("/", []), undefined);

  const repo = mkdtempSync(join(tmpdir(), "harness-ceiling-"));
  t.after(() => rmSync(repo, { recursive: true, force: true }));
  mkdirSync(join(repo, ".git"));
  const cwd = join(repo, "data", "workspaces", "ann", "s1");
  mkdirSync(cwd, { recursive: true });
  assert.deepEqual(await findProjectRoot(cwd, []), { root: repo, inGitRepo: true });
  assert.deepEqual(await findProjectRoot(cwd, [join(repo, "data", "workspaces")]), { root: cwd, inGitRepo: false });
});
