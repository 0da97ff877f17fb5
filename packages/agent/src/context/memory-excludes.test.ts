import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { test } from "node:test";
import { tempWorkspace } from "../testing/fixtures.ts";
import { loadMemory } from "./load-memory.ts";
import { memoryExcluder } from "./memory-excludes.ts";

test("exclude patterns are globs matched against absolute paths, dot directories included", () => {
  const excluded = memoryExcluder(["**/packages/web/**", "/home/u/mono/legacy/CLAUDE.md", "**/packages/*/CLAUDE.local.md"])!;
  assert.equal(excluded("/home/u/mono/packages/web/CLAUDE.md"), true);
  assert.equal(excluded("/home/u/mono/packages/web/.claude/rules/style.md"), true);
  assert.equal(excluded("/home/u/mono/legacy/CLAUDE.md"), true);
  assert.equal(excluded("/home/u/mono/packages/api/CLAUDE.local.md"), true);
  assert.equal(excluded("/home/u/mono/packages/api/CLAUDE.md"), false);
  assert.equal(excluded("/home/u/mono/CLAUDE.md"), false);
  assert.equal(memoryExcluder([]), undefined);
});

test("exclude patterns take ?, [...] classes, {a,b} alternatives and escapes; a pattern that makes no sense excludes nothing and breaks nothing", () => {
  const excluded = memoryExcluder(["/repo/{docs,legacy}/CLAUDE.md", "/repo/pkg?/CLAUDE.md", "/repo/[ab]/CLAUDE.local.md", "/repo/\\*/CLAUDE.md", "/repo/[z-a]/CLAUDE.md", "  "])!;
  const expected: Record<string, boolean> = {
    "/repo/docs/CLAUDE.md": true,
    "/repo/legacy/CLAUDE.md": true,
    "/repo/src/CLAUDE.md": false,
    "/repo/pkg1/CLAUDE.md": true,
    "/repo/pkg12/CLAUDE.md": false,
    "/repo/a/CLAUDE.local.md": true,
    "/repo/c/CLAUDE.local.md": false,
    "/repo/*/CLAUDE.md": true,
    "/repo/x/CLAUDE.md": false,
  };
  for (const [file, out] of Object.entries(expected)) assert.equal(excluded(file), out, file);
  assert.equal(memoryExcluder(["   "]), undefined);
});

test("claudeMdExcludes leaves matching memory files, rules and imports unloaded; the others load", async (t) => {
  const base = await tempWorkspace(t);
  const home = path.join(base, "home");
  const root = path.join(base, "mono");
  const cwd = path.join(root, "packages", "web");
  const files: Record<string, string> = {
    "home/.claude/CLAUDE.md": "user memory",
    "mono/CLAUDE.md": "root memory\n@docs/extra.md",
    "mono/docs/extra.md": "imported extra",
    "mono/packages/web/CLAUDE.md": "web memory",
    "mono/packages/web/CLAUDE.local.md": "web local",
    "mono/packages/web/.claude/rules/style.md": "web rule",
  };
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(base, name)), { recursive: true });
    await writeFile(path.join(base, name), text);
  }
  const loaded = await loadMemory({ cwd, projectRoot: root, home, excludes: ["**/packages/web/CLAUDE.md", "**/.claude/rules/**", "**/docs/extra.md"] });
  const mine = loaded.files.filter((f) => f.path.startsWith(base)).map((f) => f.content);
  assert.deepEqual(mine, ["user memory", "root memory\n@docs/extra.md", "web local"]);
  assert.deepEqual(loaded.diagnostics, []);
});
