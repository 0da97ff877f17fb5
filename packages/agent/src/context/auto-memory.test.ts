import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { autoMemoryDirectory, autoMemoryEnabled, canonicalGitRoot, defaultAutoMemoryDir, projectDirName } from "./auto-memory.ts";
import { autoMemoryInstructions, loadAutoMemory, MAX_AUTO_MEMORY_BYTES, MAX_AUTO_MEMORY_LINES } from "./auto-memory-load.ts";
import { memoryReminder } from "./format-memory.ts";
import { runAutoMemory } from "../harness/setup/run-auto-memory.ts";

function temp(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(tmpdir(), "auto-memory-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a project's path becomes its directory name as Claude Code writes it: every character but letters and digits a hyphen", () => {
  assert.equal(projectDirName("/Users/ana/my_project.v2"), "-Users-ana-my-project-v2");
  assert.equal(projectDirName("/home/ana/Ünï code"), "-home-ana--n--code");
  assert.equal(defaultAutoMemoryDir("/home/ana/.claude", "/work/app"), "/home/ana/.claude/projects/-work-app/memory");
});

test("a path longer than 200 characters is cut at 200 and given a hash of the whole path, so two long paths stay apart", () => {
  const long = `/${"a".repeat(250)}`;
  const name = projectDirName(long);
  assert.equal(name.slice(0, 201), `-${"a".repeat(199)}-`);
  // djb2 of the path (from 0, as a signed 32-bit integer), its absolute value in base 36.
  let hash = 0;
  for (let i = 0; i < long.length; i++) hash = ((hash << 5) - hash + long.charCodeAt(i)) | 0;
  assert.equal(name, `${"-" + "a".repeat(199)}-${Math.abs(hash).toString(36)}`);
  assert.notEqual(projectDirName(`${long}b`), name);
});

test("every worktree of a repository shares the main checkout's memory; a plain repository or directory is its own", (t) => {
  const dir = temp(t);
  const main = path.join(dir, "main");
  mkdirSync(path.join(main, ".git", "worktrees", "feature"), { recursive: true });
  writeFileSync(path.join(main, ".git", "worktrees", "feature", "commondir"), "../..\n");
  const worktree = path.join(dir, "feature");
  mkdirSync(worktree);
  writeFileSync(path.join(worktree, ".git"), `gitdir: ${path.join(main, ".git", "worktrees", "feature")}\n`);
  assert.equal(canonicalGitRoot(worktree), main);
  assert.equal(canonicalGitRoot(main), main);
  assert.equal(canonicalGitRoot(path.join(dir, "nowhere")), path.join(dir, "nowhere"));
});

test("CLAUDE_CODE_DISABLE_AUTO_MEMORY decides before the settings; the settings' autoMemoryEnabled next; on by default", () => {
  assert.equal(autoMemoryEnabled({}, {}), true);
  assert.equal(autoMemoryEnabled({}, { autoMemoryEnabled: false }), false);
  assert.equal(autoMemoryEnabled({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" }, {}), false);
  assert.equal(autoMemoryEnabled({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "true" }, { autoMemoryEnabled: true }), false);
  assert.equal(autoMemoryEnabled({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "0" }, { autoMemoryEnabled: false }), true);
  assert.equal(autoMemoryEnabled({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "" }, { autoMemoryEnabled: false }), false);
});

test("autoMemoryDirectory is taken from the user's, the run's or the managed settings (~/ expanded); a repository's settings cannot move it", () => {
  const home = "/home/ana";
  const base = "/work/app";
  const at = (sources: { scope: "user" | "project" | "local" | "flag" | "managed"; path: string; settings: Record<string, unknown> }[]) => autoMemoryDirectory({ home, configDir: "/home/ana/.claude", base, sources });
  assert.deepEqual(at([]), { dir: "/home/ana/.claude/projects/-work-app/memory", ignored: [] });
  assert.deepEqual(at([{ scope: "user", path: "u.json", settings: { autoMemoryDirectory: "~/notes/app" } }]), { dir: "/home/ana/notes/app", ignored: [] });
  assert.deepEqual(
    at([
      { scope: "user", path: "u.json", settings: { autoMemoryDirectory: "/user/mem" } },
      { scope: "managed", path: "m.json", settings: { autoMemoryDirectory: "/managed/mem/" } },
    ]).dir,
    "/managed/mem",
  );
  const repo = at([
    { scope: "project", path: "/work/app/.claude/settings.json", settings: { autoMemoryDirectory: "~/.ssh" } },
    { scope: "local", path: "/work/app/.claude/settings.local.json", settings: { autoMemoryDirectory: "/tmp/x" } },
  ]);
  assert.equal(repo.dir, "/home/ana/.claude/projects/-work-app/memory");
  assert.deepEqual(repo.ignored, ["/work/app/.claude/settings.json", "/work/app/.claude/settings.local.json"]);
});

test("MEMORY.md comes in whole up to 200 lines and 25,000 bytes; past either it is cut at a line's end and the model is told", async (t) => {
  const dir = temp(t);
  assert.equal(await loadAutoMemory(dir), undefined, "no MEMORY.md: nothing");
  writeFileSync(path.join(dir, "MEMORY.md"), "\n- [Tests](tests.md) — run with node --test\n\n");
  assert.deepEqual(await loadAutoMemory(dir), { path: path.join(dir, "MEMORY.md"), scope: "auto", content: "- [Tests](tests.md) — run with node --test" });

  const lines = Array.from({ length: 250 }, (_, i) => `- line ${i + 1}`);
  writeFileSync(path.join(dir, "MEMORY.md"), lines.join("\n"));
  const cut = (await loadAutoMemory(dir))!.content;
  assert.ok(cut.includes(`- line ${MAX_AUTO_MEMORY_LINES}\n`));
  assert.ok(!cut.includes(`- line ${MAX_AUTO_MEMORY_LINES + 1}`));
  assert.match(cut, /250 lines \(only the first 200 are loaded\)/);

  const wide = Array.from({ length: 100 }, (_, i) => `- ${String(i).padStart(3, "0")} ${"x".repeat(400)}`);
  writeFileSync(path.join(dir, "MEMORY.md"), wide.join("\n"));
  const bytes = (await loadAutoMemory(dir))!.content;
  const kept = bytes.split("\n\n> ")[0]!;
  assert.ok(Buffer.byteLength(kept) <= MAX_AUTO_MEMORY_BYTES);
  assert.ok(kept.endsWith("x".repeat(400)), "cut at the end of a line");
  assert.match(bytes, /over the 25000-byte limit/);
});

test("the model sees MEMORY.md as auto memory, after the other memory files, and is told where the directory is and how to keep it", () => {
  const reminder = memoryReminder([{ path: "/p/CLAUDE.md", scope: "project", content: "Project rules" }, { path: "/m/MEMORY.md", scope: "auto", content: "- a note" }]);
  assert.match(reminder, /Contents of \/m\/MEMORY.md \(user's auto-memory, persists across conversations\):\n\n- a note/);
  const text = autoMemoryInstructions("/home/ana/.claude/projects/-work-app/memory");
  assert.match(text, /^# auto memory/);
  assert.match(text, /\/home\/ana\/.claude\/projects\/-work-app\/memory\//);
  assert.match(text, /MEMORY\.md/);
  assert.match(text, /200 lines/);
  assert.match(text, /archive\/ in the directory holds notes filed away/, "the archive is named, to be searched");
});

test("CLAUDE_CONFIG_DIR moves the auto memory directory with the rest of the user's configuration", async (t) => {
  const home = temp(t);
  const project = temp(t);
  const config = path.join(temp(t), "config");
  const moved = await runAutoMemory({ cwd: project, home }, { CLAUDE_CONFIG_DIR: config }, { settings: {}, sources: [] }, () => {});
  assert.equal(moved?.dir.startsWith(path.join(config, "projects") + path.sep), true, moved?.dir);
  const kept = await runAutoMemory({ cwd: project, home }, { CLAUDE_CONFIG_DIR: "" }, { settings: {}, sources: [] }, () => {});
  assert.equal(kept?.dir.startsWith(path.join(home, ".claude", "projects") + path.sep), true, kept?.dir);
});
