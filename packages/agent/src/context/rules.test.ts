import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { loadMemory } from "./load-memory.ts";
import { createNestedMemory } from "./nested-memory.ts";

let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "memory-rules-"));
});
after(() => rm(root, { recursive: true, force: true }));

let n = 0;
/** A project at `cwd` and a home, each with the files given (paths relative to them). */
async function setUp(files: Record<string, string>, homeFiles: Record<string, string> = {}) {
  const cwd = path.join(root, `p${++n}`);
  const home = path.join(root, `home${n}`);
  for (const [dir, set] of [[cwd, files], [home, homeFiles]] as const) {
    await mkdir(dir, { recursive: true });
    for (const [name, text] of Object.entries(set)) {
      await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await writeFile(path.join(dir, name), text);
    }
  }
  const load = await loadMemory({ cwd, home });
  const show = (files: readonly { path: string; content: string }[]) => files.map((f) => [f.path.replace(`${cwd}/`, "").replace(`${home}/`, "~/"), f.content.trim()]);
  return { cwd, home, load, show };
}

test("rules without paths load at the start, sorted and at any depth, where Claude Code puts them", async () => {
  const p = await setUp(
    {
      "CLAUDE.md": "root",
      ".claude/CLAUDE.md": "dot claude",
      "CLAUDE.local.md": "local",
      ".claude/rules/testing.md": "Run the tests with npm test.",
      ".claude/rules/frontend/react.md": "Use function components.",
      ".claude/rules/api.md": "---\ndescription: api\n---\nValidate every input.",
      ".claude/rules/notes.txt": "not a rule",
      ".claude/rules/empty.md": "  \n",
    },
    { ".claude/CLAUDE.md": "mine", ".claude/rules/style.md": "No semicolons." },
  );
  assert.deepEqual(p.load.diagnostics, []);
  assert.deepEqual(p.show(p.load.files), [
    ["~/.claude/CLAUDE.md", "mine"],
    ["~/.claude/rules/style.md", "No semicolons."],
    ["CLAUDE.md", "root"],
    [".claude/CLAUDE.md", "dot claude"],
    [".claude/rules/api.md", "Validate every input."],
    [".claude/rules/frontend/react.md", "Use function components."],
    [".claude/rules/testing.md", "Run the tests with npm test."],
    ["CLAUDE.local.md", "local"],
  ]);
  assert.deepEqual(p.load.files.map((f) => f.scope), ["user", "user", "project", "project", "project", "project", "project", "local"]);
  assert.deepEqual(p.load.pathRules, []);
});

test("a rule with paths comes in once, with the first tool call on a file it matches", async () => {
  const p = await setUp({
    ".claude/rules/ts.md": '---\npaths:\n  - "src/**/*.{ts,tsx}"\n  - "./tests/*.test.ts"\n---\nStrict TypeScript. See @../../docs/ts-style.md',
    "docs/ts-style.md": "Style guide.",
    ".claude/rules/conventions.md": "---\npaths: docs/**\n---\nConventions.",
    ".claude/rules/py.md": "---\npaths: \"**/*.py\"\n---\nType hints.",
    "src/app/view.tsx": "",
    "tests/a.test.ts": "",
    "README.md": "",
  });
  assert.deepEqual(p.load.diagnostics, []);
  assert.deepEqual(p.load.files, [], "only rules with paths: nothing at the start");
  assert.deepEqual(p.load.pathRules.map((r) => [path.basename(r.path), r.paths]), [
    ["conventions.md", ["docs/**"]],
    ["py.md", ["**/*.py"]],
    ["ts.md", ["src/**/*.{ts,tsx}", "tests/*.test.ts"]],
  ]);
  const nested = createNestedMemory({ cwd: p.cwd, home: p.home, loaded: p.load.files, pathRules: p.load.pathRules });
  assert.deepEqual((await nested.touch("README.md")).files, [], "no rule matches");
  const first = await nested.touch(path.join(p.cwd, "src/app/view.tsx"));
  assert.deepEqual(p.show(first.files), [
    [".claude/rules/ts.md", "Strict TypeScript. See @../../docs/ts-style.md"],
    ["docs/ts-style.md", "Style guide."],
  ], "its imports follow it");
  assert.deepEqual((await nested.touch("tests/a.test.ts")).files, [], "each rule comes once");
  assert.deepEqual(p.show((await nested.touch("lib/x/tool.py")).files), [[".claude/rules/py.md", "Type hints."]]);
  assert.deepEqual((await nested.touch(path.join(root, "elsewhere.py"))).files, [], "files outside the project match nothing");
});

test("a rule whose paths are not globs is reported and left out; the others load", async () => {
  const p = await setUp({
    ".claude/rules/bad.md": "---\npaths: 5\n---\nNever loaded.",
    ".claude/rules/broken.md": "---\npaths: [unclosed\n---\nNever loaded either.",
    ".claude/rules/good.md": "Loaded.",
  });
  assert.deepEqual(p.show(p.load.files), [[".claude/rules/good.md", "Loaded."]]);
  const messages = p.load.diagnostics.map((d) => `${path.basename(d.file)}: ${d.message}`);
  assert.equal(messages.length, 2);
  assert.match(messages[0]!, /^bad\.md: `paths` must be a glob or a list of globs .*the rule is not loaded/);
  assert.match(messages[1]!, /^broken\.md: invalid YAML in the frontmatter.*the rule is not loaded/);
});

test("linked rules and directories load; a link back up the tree is followed once", async () => {
  const p = await setUp({ "shared/team.md": "Team rule.", ".claude/rules/own.md": "Own rule." });
  await symlink(path.join(p.cwd, "shared/team.md"), path.join(p.cwd, ".claude/rules/team.md"));
  await symlink(path.join(p.cwd, ".claude/rules"), path.join(p.cwd, ".claude/rules/loop"));
  await symlink(path.join(p.cwd, "missing.md"), path.join(p.cwd, ".claude/rules/dangling.md"));
  const again = await loadMemory({ cwd: p.cwd, home: p.home });
  assert.deepEqual(again.diagnostics, []);
  assert.deepEqual(p.show(again.files), [
    [".claude/rules/own.md", "Own rule."],
    [".claude/rules/team.md", "Team rule."],
  ]);
});

test("a monorepo package's rules are its project's: matched from the project's root", async () => {
  const p = await setUp({ ".git/HEAD": "", ".claude/rules/web.md": "---\npaths: packages/web/**\n---\nWeb rule.", "packages/web/a.ts": "" });
  const cwd = path.join(p.cwd, "packages/web");
  const load = await loadMemory({ cwd, projectRoot: p.cwd, home: p.home });
  const nested = createNestedMemory({ cwd, home: p.home, loaded: load.files, pathRules: load.pathRules, project: { root: p.cwd, externalImportsApproved: false } });
  assert.deepEqual((await nested.touch("a.ts")).files.map((f) => f.content.trim()), ["Web rule."]);
});
