import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadMemory } from "./load-memory.ts";

let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "memory-"));
});
after(() => rm(root, { recursive: true, force: true }));

let n = 0;
/** A fresh tree: `<base>/home`, `<base>/mono/app/pkg` (cwd), files given relative to `<base>`. */
async function tree(files: Record<string, string>) {
  const base = path.join(root, `t${++n}`);
  await mkdir(path.join(base, "home"), { recursive: true });
  await mkdir(path.join(base, "mono", "app", "pkg"), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(base, name)), { recursive: true });
    await writeFile(path.join(base, name), text);
  }
  return { base, home: path.join(base, "home"), cwd: path.join(base, "mono", "app", "pkg"), projectRoot: path.join(base, "mono", "app") };
}

const rel = (base: string, file: string) => path.relative(base, file);

/** Records, as Claude Code does, that the project's memory may import files from outside it. */
async function approveExternalImports(t: { home: string; projectRoot: string }) {
  await writeFile(path.join(t.home, ".claude.json"), JSON.stringify({ projects: { [t.projectRoot]: { hasClaudeMdExternalIncludesApproved: true } } }));
}

/** Only the files of this tree: a CLAUDE.md in a directory above the temp dir belongs to the machine. */
async function load(t: { base: string; cwd: string; home: string; projectRoot?: string }) {
  const result = await loadMemory(t);
  return { files: result.files.filter((f) => f.path.startsWith(t.base)), diagnostics: result.diagnostics };
}

test("user file first, then each directory from the top down to cwd", async () => {
  const t = await tree({
    "home/.claude/CLAUDE.md": "user prefs",
    "mono/CLAUDE.md": "monorepo rules",
    "mono/app/CLAUDE.md": "app rules",
    "mono/app/AGENTS.md": "agents rules",
    "mono/app/.claude/CLAUDE.md": "app dot-claude rules",
    "mono/app/CLAUDE.local.md": "my sandbox url",
    "mono/app/pkg/CLAUDE.md": "pkg rules",
    "mono/app/pkg/below/CLAUDE.md": "not loaded at start",
  });
  const { files, diagnostics } = await load(t);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    files.map((f) => [rel(t.base, f.path), f.scope, f.content]),
    [
      ["home/.claude/CLAUDE.md", "user", "user prefs"],
      ["mono/CLAUDE.md", "parent", "monorepo rules"],
      ["mono/app/CLAUDE.md", "project", "app rules"],
      ["mono/app/.claude/CLAUDE.md", "project", "app dot-claude rules"],
      ["mono/app/AGENTS.md", "project", "agents rules"],
      ["mono/app/CLAUDE.local.md", "local", "my sandbox url"],
      ["mono/app/pkg/CLAUDE.md", "project", "pkg rules"],
    ],
  );
});

test("no memory files at all is not a problem; empty files are left out", async () => {
  const t = await tree({ "mono/app/CLAUDE.md": "  \n" });
  assert.deepEqual(await load(t), { files: [], diagnostics: [] });
});

test("imports: relative to the importing file, ~/, absolute, nested; each placed after its importer", async () => {
  const t = await tree({
    "mono/app/docs/overview.md": "overview; details in @./details/more.md",
    "mono/app/docs/details/more.md": "more details",
    "home/notes.md": "my notes",
    "team.md": "team rules",
  });
  await writeFile(path.join(t.projectRoot, "CLAUDE.md"), `Overview in @docs/overview.md and personal notes @~/notes.md.\nTeam: @${path.join(t.base, "team.md")}`);
  await approveExternalImports(t);
  const { files, diagnostics } = await load(t);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(
    files.map((f) => [rel(t.base, f.path), f.scope, f.importedFrom && rel(t.base, f.importedFrom)]),
    [
      ["mono/app/CLAUDE.md", "project", undefined],
      ["mono/app/docs/overview.md", "project", "mono/app/CLAUDE.md"],
      ["mono/app/docs/details/more.md", "project", "mono/app/docs/overview.md"],
      ["home/notes.md", "project", "mono/app/CLAUDE.md"],
      ["team.md", "project", "mono/app/CLAUDE.md"],
    ],
  );
});

test("imports inside code are not followed", async () => {
  const t = await tree({
    "mono/app/CLAUDE.md": "Run `pnpm add @types/node`.\n```\ncat @secret.md\n```\nReal: @real.md",
    "mono/app/real.md": "real",
    "mono/app/secret.md": "must not load",
  });
  const { files, diagnostics } = await load(t);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(files.map((f) => f.content), ["Run `pnpm add @types/node`.\n```\ncat @secret.md\n```\nReal: @real.md", "real"]);
});

test("a cycle and a missing import become diagnostics (not a mention of a name); everything else still loads", async () => {
  const t = await tree({
    "mono/app/CLAUDE.md": "@a.md and @missing.md; thanks to @alice for @types/node",
    "mono/app/a.md": "a imports @b.md",
    "mono/app/b.md": "b imports @a.md",
    "mono/app/pkg/CLAUDE.md": "pkg",
  });
  const { files, diagnostics } = await load(t);
  assert.deepEqual(files.map((f) => rel(t.base, f.path)), ["mono/app/CLAUDE.md", "mono/app/a.md", "mono/app/b.md", "mono/app/pkg/CLAUDE.md"]);
  assert.equal(diagnostics.length, 2);
  assert.equal(rel(t.base, diagnostics[0]!.file), "mono/app/b.md");
  assert.match(diagnostics[0]!.message, /@a\.md is circular/);
  assert.equal(rel(t.base, diagnostics[1]!.file), "mono/app/CLAUDE.md");
  assert.match(diagnostics[1]!.message, /@missing\.md not found/);
});

test("imports stop after five hops", async () => {
  const files: Record<string, string> = { "mono/app/CLAUDE.md": "@d1.md" };
  for (let i = 1; i <= 6; i++) files[`mono/app/d${i}.md`] = `depth ${i} @d${i + 1}.md`;
  const t = await tree(files);
  const result = await load(t);
  assert.deepEqual(result.files.map((f) => path.basename(f.path)), ["CLAUDE.md", "d1.md", "d2.md", "d3.md", "d4.md", "d5.md"]);
  assert.equal(result.diagnostics.length, 1);
  assert.match(result.diagnostics[0]!.message, /@d6\.md is more than 5 imports deep/);
});

test("a file reached twice is sent once (CLAUDE.md importing the AGENTS.md beside it)", async () => {
  const t = await tree({ "mono/app/CLAUDE.md": "See @AGENTS.md", "mono/app/AGENTS.md": "shared agent rules" });
  const { files, diagnostics } = await load(t);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(files.map((f) => path.basename(f.path)), ["CLAUDE.md", "AGENTS.md"]);
});

test("one file under two names (CLAUDE.md a link to AGENTS.md) is sent once", async () => {
  const t = await tree({ "mono/app/AGENTS.md": "shared agent rules" });
  await symlink("AGENTS.md", path.join(t.projectRoot, "CLAUDE.md"));
  const { files, diagnostics } = await load(t);
  assert.deepEqual(diagnostics, []);
  assert.deepEqual(files.map((f) => [path.basename(f.path), f.content]), [["CLAUDE.md", "shared agent rules"]]);
});

test("binary imports and directories are diagnostics, not crashes", async () => {
  const t = await tree({ "mono/app/CLAUDE.md": "@logo.png @docs", "mono/app/docs/x.md": "x" });
  await writeFile(path.join(t.projectRoot, "logo.png"), Buffer.from([0x89, 0x50, 0x00, 0x01]));
  const { files, diagnostics } = await load(t);
  assert.equal(files.length, 1);
  assert.deepEqual(diagnostics.map((d) => /binary|directory/.exec(d.message)?.[0]), ["binary", "directory"]);
});

test("projectRoot defaults to cwd: directories above it are parent scope", async () => {
  const t = await tree({ "mono/app/CLAUDE.md": "app", "mono/app/pkg/CLAUDE.md": "pkg" });
  const { files } = await load({ base: t.base, cwd: t.cwd, home: t.home });
  assert.deepEqual(files.map((f) => f.scope), ["parent", "project"]);
});

test("an import of a named pipe or a device is refused at once, and the rest loads", async () => {
  const t = await tree({ "mono/app/CLAUDE.md": "Never read @/dev/zero directly, nor @build.pipe.\n", "mono/app/pkg/CLAUDE.md": "pkg" });
  await approveExternalImports(t);
  execFileSync("mkfifo", [path.join(t.base, "mono/app/build.pipe")]);
  const loaded = await Promise.race([load(t), new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the load blocked")), 5000))]);
  assert.deepEqual(loaded.files.map((f) => rel(t.base, f.path)), ["mono/app/CLAUDE.md", "mono/app/pkg/CLAUDE.md"]);
  assert.deepEqual(
    loaded.diagnostics.map((d) => d.message.replace(t.base, "<base>")),
    [
      "Import @/dev/zero skipped: /dev/zero cannot be read: it is a character device, not a regular file, so it is not read",
      "Import @build.pipe skipped: <base>/mono/app/build.pipe cannot be read: it is a named pipe (FIFO), not a regular file, so it is not read",
    ],
  );
});

test("a project's memory imports files from outside it only once that is approved; ~/.claude and files above the project may", async () => {
  const t = await tree({
    "mono/CLAUDE.md": "Above the project: @../team.md",
    "mono/app/CLAUDE.md": `Mine: @~/.claude/prefs.md, keys: @~/.ssh/id_rsa, other: @../../elsewhere.md, inside: @docs/a.md`,
    "mono/app/docs/a.md": "a",
    "home/.claude/prefs.md": "prefs",
    "home/.ssh/id_rsa": "PRIVATE KEY",
    "elsewhere.md": "elsewhere",
    "team.md": "team",
  });
  const held = await load(t);
  assert.deepEqual(held.files.map((f) => rel(t.base, f.path)), ["mono/CLAUDE.md", "team.md", "mono/app/CLAUDE.md", "home/.claude/prefs.md", "mono/app/docs/a.md"]);
  assert.deepEqual(
    held.diagnostics.map((d) => d.message.replaceAll(t.base, "<base>").replace(/\. A project's memory.*$/, ".")),
    ["Import @~/.ssh/id_rsa not loaded: <base>/home/.ssh/id_rsa is outside the project (<base>/mono/app).", "Import @../../elsewhere.md not loaded: <base>/elsewhere.md is outside the project (<base>/mono/app)."],
  );
  assert.match(held.diagnostics[0].message, /set "hasClaudeMdExternalIncludesApproved": true in this project's entry of ~\/\.claude\.json/);

  await approveExternalImports(t);
  const approved = await load(t);
  assert.deepEqual(approved.diagnostics, []);
  assert.ok(approved.files.some((f) => f.path.endsWith("id_rsa")));
});

test("a link inside the project that leads out of it is held back like any import from outside", async () => {
  const t = await tree({ "mono/app/CLAUDE.md": "Through a link: @docs/key.md", "mono/app/docs/a.md": "a", "home/.ssh/id_rsa": "PRIVATE KEY" });
  await symlink(path.join(t.base, "home/.ssh/id_rsa"), path.join(t.base, "mono/app/docs/key.md"));
  const held = await load(t);
  assert.deepEqual(held.files.map((f) => rel(t.base, f.path)), ["mono/app/CLAUDE.md"]);
  assert.deepEqual(
    held.diagnostics.map((d) => d.message.replaceAll(t.base, "<base>").replace(/\. A project's memory.*$/, ".")),
    ["Import @docs/key.md not loaded: <base>/mono/app/docs/key.md leads to <base>/home/.ssh/id_rsa, outside the project (<base>/mono/app)."],
  );
});
