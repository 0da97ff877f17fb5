import { test } from "node:test";
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../test-support.ts";
import { createCheckpoints } from "./checkpoints.ts";

const needsGit = { skip: spawnSync("git", ["--version"]).status === 0 ? false : "git is not installed" };

function write(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

test("the files created or changed since a snapshot, whatever changed them: not the deleted ones, nor .git, node_modules, ignored files or the state directory", needsGit, async (t) => {
  const root = tempDir(t, "harness-changed-");
  const workspace = join(root, "ws");
  // The runner's state inside the workspace: its files are never the run's.
  const stateDir = join(workspace, ".state");
  write(workspace, { "kept.txt": "k", "edited.txt": "1", "removed.txt": "r", ".gitignore": "*.log\n" });
  const checkpoints = createCheckpoints({ workspace, stateDir });
  const before = await checkpoints.beforeRun("m1", "builtin");
  assert.ok(before.ok && before.value.tree);
  const tree = before.value.tree!;

  const unchanged = await checkpoints.changedSince(tree, 10);
  assert.deepEqual(unchanged, { ok: true, value: { paths: [], truncated: false, tree } });

  write(workspace, { "edited.txt": "2", "new/deep/file.md": "#", ".git/HEAD": "x", "node_modules/m/i.js": "", "build.log": "l", ".state/own": "s" });
  rmSync(join(workspace, "removed.txt"));
  const changed = await checkpoints.changedSince(tree, 10);
  assert.ok(changed.ok);
  assert.deepEqual(changed.value.paths, ["edited.txt", "new/deep/file.md"]);
  assert.equal(changed.value.truncated, false);
  assert.notEqual(changed.value.tree, tree);

  // From the last comparison on: only what changed since.
  write(workspace, { "third.txt": "3" });
  const next = await checkpoints.changedSince(changed.value.tree, 10);
  assert.ok(next.ok);
  assert.deepEqual(next.value.paths, ["third.txt"]);

  const capped = await checkpoints.changedSince(tree, 2);
  assert.ok(capped.ok);
  assert.deepEqual(capped.value, { paths: ["edited.txt", "new/deep/file.md"], truncated: true, tree: capped.value.tree });

  // The checkpoint still rewinds to where it was.
  const restored = await checkpoints.restore(tree);
  assert.ok(restored.ok);
});
