import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadMemory } from "./load-memory.ts";
import { createNestedMemory } from "./nested-memory.ts";

let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "nested-memory-"));
});
after(() => rm(root, { recursive: true, force: true }));

let n = 0;
async function project(files: Record<string, string>) {
  const cwd = path.join(root, `p${++n}`);
  const home = path.join(root, `home${n}`);
  await mkdir(home, { recursive: true });
  await mkdir(cwd, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(cwd, name)), { recursive: true });
    await writeFile(path.join(cwd, name), text);
  }
  const loaded = (await loadMemory({ cwd, home })).files;
  return { cwd, home, loaded };
}

test("the first touch below cwd brings the memory files between cwd and that directory, once", async () => {
  const p = await project({
    "CLAUDE.md": "root rules",
    "src/CLAUDE.md": "src rules",
    "src/api/AGENTS.md": "api agents",
    "src/api/CLAUDE.md": "api rules @conventions.md",
    "src/api/conventions.md": "conventions",
    "src/api/handlers/x.ts": "code",
    "docs/CLAUDE.md": "docs rules",
  });
  assert.deepEqual(p.loaded.filter((f) => f.path.startsWith(p.cwd)).map((f) => f.content), ["root rules"]);
  const nested = createNestedMemory(p);

  const first = await nested.touch(path.join(p.cwd, "src/api/handlers/x.ts"));
  assert.deepEqual(first.diagnostics, []);
  assert.deepEqual(
    first.files.map((f) => [path.relative(p.cwd, f.path), f.scope]),
    [
      ["src/CLAUDE.md", "project"],
      ["src/api/CLAUDE.md", "project"],
      ["src/api/conventions.md", "project"],
      ["src/api/AGENTS.md", "project"],
    ],
  );
  assert.deepEqual(await nested.touch("src/api/other.ts"), { files: [], diagnostics: [] }, "already in the conversation");
  const docs = await nested.touch("docs");
  assert.deepEqual(docs.files.map((f) => f.content), ["docs rules"], "a directory path counts as that directory");
});

test("paths in cwd itself or outside it bring nothing; files loaded at the start are never repeated", async () => {
  const p = await project({ "CLAUDE.md": "root", "a/CLAUDE.md": "a rules", "a/b.ts": "" });
  const nested = createNestedMemory({ ...p, loaded: [...p.loaded, { path: path.join(p.cwd, "a", "CLAUDE.md"), scope: "project", content: "a rules" }] });
  assert.deepEqual((await nested.touch("README.md")).files, []);
  assert.deepEqual((await nested.touch(path.join(root, "elsewhere", "x.ts"))).files, []);
  assert.deepEqual((await nested.touch("../p1/src/x.ts")).files, []);
  assert.deepEqual((await nested.touch("a/b.ts")).files, []);
});

test("concurrent touches of one directory return its files once", async () => {
  const p = await project({ "lib/CLAUDE.md": "lib rules", "lib/x.ts": "", "lib/y.ts": "" });
  const nested = createNestedMemory(p);
  const results = await Promise.all([nested.touch("lib/x.ts"), nested.touch("lib/y.ts"), nested.touch("lib/z-new-file.ts")]);
  assert.deepEqual(results.flatMap((r) => r.files.map((f) => f.content)), ["lib rules"]);
});

test("a bad import in a nested file is a diagnostic of that touch", async () => {
  const p = await project({ "lib/CLAUDE.md": "see @gone.md", "lib/x.ts": "" });
  const result = await createNestedMemory(p).touch("lib/x.ts");
  assert.deepEqual(result.files.map((f) => f.content), ["see @gone.md"]);
  assert.equal(result.diagnostics.length, 1);
  assert.match(result.diagnostics[0]!.message, /@gone\.md not found/);
});
