import { test } from "node:test";
import { execFileSync, spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../test-support.ts";
import { createCheckpoints } from "./checkpoints.ts";
import { parseChanges } from "./git-output.ts";
import { readIndex } from "./index-file.ts";
import { createGit } from "./git.ts";

const needsGit = { skip: spawnSync("git", ["--version"]).status === 0 ? false : "git is not installed" };

/** Every file under `dir`: its bytes (base64) and whether it is executable. */
function contents(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) Object.assign(out, contents(path, base));
    else out[path.slice(base.length + 1)] = `${statSync(path).mode & 0o111 ? "x" : "-"}${readFileSync(path).toString("base64")}`;
  }
  return out;
}

function write(dir: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

function setup(t: { after(fn: () => unknown): void }) {
  const root = tempDir(t, "harness-checkpoints-");
  const workspace = join(root, "ws");
  const stateDir = join(root, "ws.harness-state");
  mkdirSync(workspace);
  return { workspace, stateDir };
}

test("a snapshot taken before a run restores every file byte for byte and removes the files created since", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, {
    "a.txt": "one\ntwo\nthree\n",
    "crlf.txt": "keep\r\nthese\r\n",
    "bin/tool.sh": "#!/bin/sh\necho hi\n",
    "data.bin": Buffer.from([0, 1, 2, 255, 254, 0]),
    "doomed.txt": "I will be deleted\n",
    ".gitignore": "build/\n",
    ".gitattributes": "* text eol=crlf\n",
    "build/out.js": "ignored output\n",
    "node_modules/dep/index.js": "module.exports = 1;\n",
    ".git/HEAD": "ref: refs/heads/main\n",
  });
  chmodSync(join(workspace, "bin/tool.sh"), 0o755);
  const before = contents(workspace);
  const checkpoints = createCheckpoints({ workspace, stateDir });
  assert.equal(await checkpoints.available(), true);
  const taken = await checkpoints.beforeRun("u1", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));

  write(workspace, {
    "a.txt": "one\nTWO\nthree\nfour\n",
    "crlf.txt": "changed\n",
    "data.bin": Buffer.from([9, 9]),
    "new/deep/created.txt": "new\n",
    "build/out.js": "rebuilt\n",
    "node_modules/dep/index.js": "module.exports = 2;\n",
  });
  rmSync(join(workspace, "doomed.txt"));
  chmodSync(join(workspace, "bin/tool.sh"), 0o644);
  const changed = contents(workspace);

  const plan = await checkpoints.plan(taken.value.tree);
  assert.ok(plan.ok, JSON.stringify(plan));
  assert.deepEqual(
    plan.value.sort((x, y) => x.path.localeCompare(y.path)),
    [
      { path: "a.txt", action: "restore", linesAdded: 1, linesRemoved: 2 },
      { path: "bin/tool.sh", action: "restore", linesAdded: 0, linesRemoved: 0 },
      { path: "crlf.txt", action: "restore", linesAdded: 2, linesRemoved: 1 },
      { path: "data.bin", action: "restore" },
      { path: "doomed.txt", action: "restore", linesAdded: 1, linesRemoved: 0 },
      { path: "new/deep/created.txt", action: "delete", linesAdded: 0, linesRemoved: 1 },
    ],
  );
  assert.deepEqual(contents(workspace), changed, "planning touches no file");

  const restored = await checkpoints.restore(taken.value.tree);
  assert.ok(restored.ok, JSON.stringify(restored));
  assert.equal(restored.value.length, 6);
  const after = contents(workspace);
  // Ignored and excluded files are not the checkpoint's business: they keep their new content.
  assert.deepEqual(after, { ...before, "build/out.js": changed["build/out.js"], "node_modules/dep/index.js": changed["node_modules/dep/index.js"] });
  assert.equal(existsSync(join(workspace, "new")), false, "directories left empty are removed");
  assert.deepEqual((await checkpoints.plan(taken.value.tree)).ok && (await checkpoints.plan(taken.value.tree)), { ok: true, value: [] });
});

test("the first snapshot for a message wins, and a restarted runner still finds it", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "f.txt": "v1\n" });
  const first = createCheckpoints({ workspace, stateDir });
  const a = await first.beforeRun("u1", "builtin");
  write(workspace, { "f.txt": "v2\n" });
  const again = await first.beforeRun("u1", "builtin");
  assert.ok(a.ok && again.ok);
  assert.equal(again.value.tree, a.value.tree);

  const restarted = createCheckpoints({ workspace, stateDir });
  const entry = await restarted.entry("u1");
  assert.equal(entry?.tree, a.value.tree);
  assert.equal(entry?.backend, "builtin");
  assert.equal(await restarted.entry("unknown"), undefined);
  const restored = await restarted.restore(entry!.tree!);
  assert.ok(restored.ok);
  assert.equal(readFileSync(join(workspace, "f.txt"), "utf8"), "v1\n");
});

test("message ids that name Object's own properties are checkpoints like any other, across a restart", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "f.txt": "v1\n" });
  const first = createCheckpoints({ workspace, stateDir });
  assert.equal(await first.entry("constructor"), undefined);
  for (const id of ["constructor", "__proto__", "toString"]) {
    const taken = await first.beforeRun(id, "builtin");
    assert.ok(taken.ok && taken.value.tree !== undefined && taken.value.ms >= 0, id);
  }
  const restarted = createCheckpoints({ workspace, stateDir });
  for (const id of ["constructor", "__proto__", "toString"]) assert.equal((await restarted.entry(id))?.backend, "builtin", id);
  assert.equal(await restarted.entry("hasOwnProperty"), undefined);
});

test("without git, no snapshot is taken but the run's backend is still recorded", async (t) => {
  const { workspace, stateDir } = setup(t);
  const checkpoints = createCheckpoints({ workspace, stateDir, git: createGit(join(workspace, "no-such-git")) });
  assert.equal(await checkpoints.available(), false);
  const taken = await checkpoints.beforeRun("u1", "claude-code");
  assert.deepEqual(taken.ok && taken.value.tree, undefined);
  assert.equal((await checkpoints.entry("u1"))?.backend, "claude-code");
});

const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_AUTHOR_NAME: "u", GIT_AUTHOR_EMAIL: "u@localhost", GIT_COMMITTER_NAME: "u", GIT_COMMITTER_EMAIL: "u@localhost" };
const gitIn = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: gitEnv }).toString();

test("the files of repositories nested in the workspace are restored like any others; their own git state is left alone", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "project/main.c": "int main() {}\n", "project/.gitignore": "*.o\n", "project/lib.o": "object\n", "fresh/x.txt": "nested\n", "top.txt": "top\n" });
  const project = join(workspace, "project");
  gitIn(project, "init", "--quiet");
  gitIn(project, "add", ".");
  gitIn(project, "commit", "--quiet", "-m", "first");
  // A repository without a commit yet.
  gitIn(join(workspace, "fresh"), "init", "--quiet");
  write(workspace, { "project/main.c": "int main() { return 0; }\n" });
  const projectGit = () => [gitIn(project, "status", "--porcelain"), gitIn(project, "rev-parse", "HEAD"), gitIn(project, "ls-files", "--stage")];
  const gitBefore = projectGit();
  const checkpoints = createCheckpoints({ workspace, stateDir });
  const taken = await checkpoints.beforeRun("u1", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
  const before = contents(workspace);

  write(workspace, { "project/main.c": "broken\n", "project/new.c": "new\n", "project/lib.o": "rebuilt\n", "project/.gitignore": "*.o\n*.a\n", "fresh/x.txt": "changed\n", "top.txt": "changed\n" });
  const plan = await checkpoints.plan(taken.value.tree);
  assert.deepEqual(plan.ok && plan.value.map((f) => `${f.action} ${f.path}`).sort(), [
    "delete project/new.c",
    "restore fresh/x.txt",
    "restore project/.gitignore",
    "restore project/main.c",
    "restore top.txt",
  ]);
  const restored = await checkpoints.restore(taken.value.tree);
  assert.deepEqual(restored, plan);
  assert.deepEqual(contents(workspace), { ...before, "project/lib.o": contents(workspace)["project/lib.o"] });
  assert.equal(readFileSync(join(project, "lib.o"), "utf8"), "rebuilt\n", "what the nested repository ignores is left as it is");
  assert.deepEqual(projectGit(), gitBefore);
});

test("a snapshot of an earlier version, which holds a nested repository as a gitlink, restores the rest and leaves that repository's files", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "project/main.c": "committed\n", "top.txt": "top\n" });
  const project = join(workspace, "project");
  gitIn(project, "init", "--quiet");
  gitIn(project, "add", ".");
  gitIn(project, "commit", "--quiet", "-m", "first");
  const checkpoints = createCheckpoints({ workspace, stateDir });
  assert.ok((await checkpoints.beforeRun("u0", "builtin")).ok);
  // What an earlier version kept: the nested repository as the commit its HEAD names.
  const gitDir = join(stateDir, "checkpoints.git");
  const shadow = (input: string, ...args: string[]) => execFileSync("git", ["--git-dir", gitDir, ...args], { input, env: gitEnv }).toString().trim();
  const blob = shadow("top\n", "hash-object", "-w", "--stdin");
  const old = shadow(`160000 commit ${gitIn(project, "rev-parse", "HEAD").trim()}\tproject\n100644 blob ${blob}\ttop.txt\n`, "mktree");

  write(workspace, { "project/main.c": "uncommitted work\n", "project/new.c": "new\n", "top.txt": "changed\n" });
  const plan = await checkpoints.plan(old);
  assert.deepEqual(plan.ok && plan.value.map((f) => `${f.action} ${f.path}`), ["restore top.txt"]);
  assert.deepEqual(await checkpoints.restore(old), plan);
  assert.equal(readFileSync(join(workspace, "top.txt"), "utf8"), "top\n");
  assert.equal(readFileSync(join(project, "main.c"), "utf8"), "uncommitted work\n");
  assert.equal(readFileSync(join(project, "new.c"), "utf8"), "new\n");
});

test("a nested repository an earlier version left in the shadow index as a gitlink has its files snapshotted from then on", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "project/main.c": "v1\n" });
  const project = join(workspace, "project");
  gitIn(project, "init", "--quiet");
  gitIn(project, "add", ".");
  gitIn(project, "commit", "--quiet", "-m", "first");
  const first = createCheckpoints({ workspace, stateDir });
  assert.ok((await first.beforeRun("u0", "builtin")).ok);
  const gitDir = join(stateDir, "checkpoints.git");
  execFileSync("git", ["--git-dir", gitDir, "--work-tree", workspace, "rm", "-r", "--cached", "--quiet", "project"], { env: gitEnv });
  execFileSync("git", ["--git-dir", gitDir, "--work-tree", workspace, "add", "--all"], { env: gitEnv, stdio: "ignore" });
  assert.match(execFileSync("git", ["--git-dir", gitDir, "ls-files", "--stage"]).toString(), /^160000 /);

  const restarted = createCheckpoints({ workspace, stateDir });
  const taken = await restarted.beforeRun("u1", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
  write(workspace, { "project/main.c": "v2\n" });
  assert.deepEqual(await restarted.restore(taken.value.tree), { ok: true, value: [{ path: "project/main.c", action: "restore", linesAdded: 1, linesRemoved: 1 }] });
  assert.equal(readFileSync(join(project, "main.c"), "utf8"), "v1\n");
});

test("a file the checkpoint's .gitignore ignored stays, even after a run changed the .gitignore so that the snapshots hold it", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { ".gitignore": ".env\nbuild/\n*.log\n!keep.log\n", ".env": "SECRET=1\n", "build/out.js": "built\n", "sub/.gitignore": "*.tmp\n", "sub/cache.tmp": "cache\n", "app.js": "v1\n" });
  const checkpoints = createCheckpoints({ workspace, stateDir });
  const taken = await checkpoints.beforeRun("u1", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));

  // The run rewrites the .gitignore files (dropping what they ignored) and adds files of its own.
  write(workspace, { ".gitignore": "dist/\n", "sub/.gitignore": "", "app.js": "v2\n", "created.txt": "new\n", "run.log": "log\n", "keep.log": "kept?\n" });
  const later = await checkpoints.beforeRun("u2", "builtin");
  assert.ok(later.ok);
  const plan = await checkpoints.plan(taken.value.tree);
  assert.deepEqual(plan.ok && plan.value.map((f) => `${f.action} ${f.path}`).sort(), [
    "delete created.txt",
    "delete keep.log",
    "restore .gitignore",
    "restore app.js",
    "restore sub/.gitignore",
  ]);
  assert.deepEqual(await checkpoints.restore(taken.value.tree), plan);
  assert.equal(readFileSync(join(workspace, ".env"), "utf8"), "SECRET=1\n");
  assert.equal(readFileSync(join(workspace, "build/out.js"), "utf8"), "built\n");
  assert.equal(readFileSync(join(workspace, "sub/cache.tmp"), "utf8"), "cache\n");
  assert.equal(readFileSync(join(workspace, "run.log"), "utf8"), "log\n", "ignored by the restored rules: left as it is");
  assert.equal(existsSync(join(workspace, "created.txt")), false);
  assert.equal(existsSync(join(workspace, "keep.log")), false);
  assert.deepEqual(await checkpoints.plan(taken.value.tree), { ok: true, value: [] });
});

test("a restore that does not complete puts every file back as it was, and names the files it could not restore", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "a.txt": "a\n", "dir/b.txt": "b\n" });
  const real = createGit();
  // What git does when it cannot write or remove a file: it fails after changing the others, or
  // (for a file it cannot remove) only warns.
  let failing: "fails" | "warns" | undefined;
  const git = {
    ...real,
    async run(args: readonly string[], options?: Parameters<typeof real.run>[1]) {
      const done = await real.run(args, options);
      if (args[0] !== "read-tree" || !failing || !done.ok) return done;
      const mode = failing;
      failing = undefined;
      writeFileSync(join(workspace, "created.txt"), "user work\n");
      if (mode === "warns") return { ...done, stderr: "warning: unable to unlink 'created.txt': Operation not permitted\n" };
      return { ok: false as const, message: "git read-tree failed (exit 128): error: unable to unlink old 'created.txt': Operation not permitted" };
    },
  };
  const checkpoints = createCheckpoints({ workspace, stateDir, git });
  const taken = await checkpoints.beforeRun("u1", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
  write(workspace, { "a.txt": "changed\n", "created.txt": "user work\n", "dir/new.txt": "new\n" });
  rmSync(join(workspace, "dir/b.txt"));
  const changed = contents(workspace);

  for (const mode of ["fails", "warns"] as const) {
    failing = mode;
    const restored = await checkpoints.restore(taken.value.tree);
    assert.equal(restored.ok, false, mode);
    assert.match(!restored.ok ? restored.message : "", /the restore did not complete \(not restored: created\.txt\): .*unable to unlink.*; every file was put back as it was before the rewind/, mode);
    assert.deepEqual(contents(workspace), changed, mode);
  }
  const restored = await checkpoints.restore(taken.value.tree);
  assert.ok(restored.ok, JSON.stringify(restored));
  assert.deepEqual(Object.keys(contents(workspace)).sort(), ["a.txt", "dir/b.txt"]);
  assert.equal(readFileSync(join(workspace, "a.txt"), "utf8"), "a\n");
});

test("a restore that would remove ignored files standing where the checkpoint has others is refused, dry run included, and names them", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { ".gitignore": "*.log\n", out: "a file\n", "logs/app.txt": "app\n" });
  const checkpoints = createCheckpoints({ workspace, stateDir });
  const taken = await checkpoints.beforeRun("u1", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
  // `out` became a directory holding an ignored file; `logs` an ignored file.
  rmSync(join(workspace, "out"));
  rmSync(join(workspace, "logs"), { recursive: true });
  write(workspace, { "out/precious.log": "precious\n", "out/tracked.txt": "new\n", "logs.log": "x\n" });
  writeFileSync(join(workspace, "logs"), "");
  write(workspace, { ".gitignore": "*.log\nlogs\n" });
  const changed = contents(workspace);
  const plan = await checkpoints.plan(taken.value.tree);
  assert.deepEqual(plan, {
    ok: false,
    blocked: true,
    message: "files that checkpoints leave alone (ignored ones) stand where the checkpoint restores others, and would be lost: logs, out/precious.log; move them away and rewind again",
  });
  assert.deepEqual(await checkpoints.restore(taken.value.tree), plan);
  assert.deepEqual(contents(workspace), changed);

  rmSync(join(workspace, "out/precious.log"));
  rmSync(join(workspace, "logs"));
  const restored = await checkpoints.restore(taken.value.tree);
  assert.ok(restored.ok, JSON.stringify(restored));
  assert.equal(readFileSync(join(workspace, "out"), "utf8"), "a file\n");
  assert.equal(readFileSync(join(workspace, "logs/app.txt"), "utf8"), "app\n");
});

test("files whose names git refuses to store are left out of the snapshot, which still holds the rest; names only Windows would refuse are kept", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { ".GIT/config": "not a repository\n", "sub/.Git/x": "x\n", "git~1/y.txt": "y\n", ".git. /z.txt": "z\n", "a.txt": "a\n" });
  const checkpoints = createCheckpoints({ workspace, stateDir });
  const taken = await checkpoints.beforeRun("u1", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
  assert.deepEqual(taken.value.leftOut?.sort(), [".GIT/config", "sub/.Git/x"]);
  write(workspace, { ".GIT/config": "changed\n", "git~1/y.txt": "Y\n", ".git. /z.txt": "Z\n", "a.txt": "A\n" });
  const restored = await checkpoints.restore(taken.value.tree);
  assert.deepEqual(restored.ok && restored.value.map((f) => f.path).sort(), [".git. /z.txt", "a.txt", "git~1/y.txt"]);
  assert.deepEqual(contents(workspace), { ".GIT/config": contents(workspace)[".GIT/config"], "sub/.Git/x": contents(workspace)["sub/.Git/x"], "git~1/y.txt": "-eQo=", ".git. /z.txt": "-ego=", "a.txt": "-YQo=" });
  assert.equal(readFileSync(join(workspace, ".GIT/config"), "utf8"), "changed\n");
});

test("a restored file keeps its permission bits (a file only its owner may read stays so); whether it is executable is the checkpoint's", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "id_key": "secret\n", "run.sh": "#!/bin/sh\n", "shared.txt": "shared\n" });
  chmodSync(join(workspace, "id_key"), 0o600);
  chmodSync(join(workspace, "run.sh"), 0o700);
  chmodSync(join(workspace, "shared.txt"), 0o664);
  const checkpoints = createCheckpoints({ workspace, stateDir });
  const taken = await checkpoints.beforeRun("u1", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
  write(workspace, { "id_key": "leaked?\n", "run.sh": "#!/bin/sh\nrm -rf /\n", "shared.txt": "changed\n" });
  chmodSync(join(workspace, "run.sh"), 0o600);
  const restored = await checkpoints.restore(taken.value.tree);
  assert.ok(restored.ok, JSON.stringify(restored));
  const mode = (name: string) => (statSync(join(workspace, name)).mode & 0o777).toString(8);
  assert.deepEqual([mode("id_key"), mode("run.sh"), mode("shared.txt")], ["600", "700", "664"]);
  assert.equal(readFileSync(join(workspace, "id_key"), "utf8"), "secret\n");
});

test("a lock that a killed git left in the shadow repository is removed by the next runner, which snapshots again", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "a.txt": "a\n" });
  assert.ok((await createCheckpoints({ workspace, stateDir }).beforeRun("u1", "builtin")).ok);
  const lock = join(stateDir, "checkpoints.git", "index.lock");
  writeFileSync(lock, "");
  const before = new Date(Date.now() - process.uptime() * 1000 - 60_000);
  utimesSync(lock, before, before);
  write(workspace, { "a.txt": "b\n" });
  const taken = await createCheckpoints({ workspace, stateDir }).beforeRun("u2", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
  assert.equal(existsSync(lock), false);
});

test("a workspace a run removed altogether is made again and filled by a restore", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "a.txt": "a\n", "src/b.txt": "b\n" });
  const before = contents(workspace);
  const checkpoints = createCheckpoints({ workspace, stateDir });
  const taken = await checkpoints.beforeRun("u1", "builtin");
  assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
  rmSync(workspace, { recursive: true });
  const plan = await checkpoints.plan(taken.value.tree);
  assert.deepEqual(plan.ok && plan.value.map((f) => `${f.action} ${f.path}`), ["restore a.txt", "restore src/b.txt"]);
  assert.deepEqual(await checkpoints.restore(taken.value.tree), plan);
  assert.deepEqual(contents(workspace), before);
});

test("diff output is read as restore and delete actions with line counts", () => {
  const raw = (mode: string, status: string) => `:${mode} ${"1".repeat(40)} ${"2".repeat(40)} ${status}`;
  const status = [raw("100644 100644", "M"), "a.txt", raw("000000 100644", "A"), "gone.txt", raw("100644 000000", "D"), "new file.txt", raw("100644 100644", "M"), "img.png", ""].join("\0");
  const numstat = ["3\t1\ta.txt", "2\t0\tgone.txt", "0\t4\tnew file.txt", "-\t-\timg.png", ""].join("\0");
  assert.deepEqual(parseChanges(status, numstat), [
    { path: "a.txt", action: "restore", linesAdded: 3, linesRemoved: 1 },
    { path: "gone.txt", action: "restore", linesAdded: 2, linesRemoved: 0 },
    { path: "new file.txt", action: "delete", linesAdded: 0, linesRemoved: 4 },
    { path: "img.png", action: "restore" },
  ]);
});

test("every snapshot stays in the shadow repository through a garbage collection", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  const checkpoints = createCheckpoints({ workspace, stateDir });
  const trees: string[] = [];
  for (const [id, text] of [["m1", "first\n"], ["m2", "second\n"], ["m3", "second\n"]]) {
    write(workspace, { "a.txt": text });
    const taken = await checkpoints.beforeRun(id, "builtin");
    assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
    trees.push(taken.value.tree);
  }
  assert.equal(trees[1], trees[2], "an unchanged workspace gives the same tree");
  execFileSync("git", ["--git-dir", join(stateDir, "checkpoints.git"), "gc", "--quiet", "--prune=now"]);
  write(workspace, { "a.txt": "third\n" });
  const restored = await checkpoints.restore(trees[0]);
  assert.ok(restored.ok, JSON.stringify(restored));
  assert.equal(readFileSync(join(workspace, "a.txt"), "utf8"), "first\n");
});

test("past the retention the oldest checkpoints are dropped, with the objects only they held; the rest still restore", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  const checkpoints = createCheckpoints({ workspace, stateDir, retention: { entries: 2, slack: 1 } });
  const gitDir = join(stateDir, "checkpoints.git");
  const blobOf = (text: string) => execFileSync("git", ["hash-object", "--stdin"], { input: text }).toString().trim();
  const has = (object: string) => spawnSync("git", ["--git-dir", gitDir, "cat-file", "-e", object]).status === 0;
  const trees: string[] = [];
  for (let n = 1; n <= 4; n++) {
    write(workspace, { "a.txt": `version ${n}\n` });
    const taken = await checkpoints.beforeRun(`m${n}`, "builtin");
    assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
    trees.push(taken.value.tree);
    if (n === 3) assert.ok(await checkpoints.entry("m1"), "within the slack nothing is dropped");
  }
  assert.equal(await checkpoints.entry("m1"), undefined);
  assert.equal(await checkpoints.entry("m2"), undefined);
  assert.equal((await checkpoints.entry("m3"))?.tree, trees[2]);
  assert.deepEqual(readdirSync(join(gitDir, "refs", "harness", "trees")).sort(), [trees[2], trees[3]].sort());
  assert.equal(has(blobOf("version 1\n")), false, "what only a dropped checkpoint held is gone");
  assert.equal(has(blobOf("version 3\n")), true);
  assert.equal(readFileSync(join(stateDir, "checkpoints.jsonl"), "utf8").trim().split("\n").length, 2, "the journal is rewritten short");
  const again = await readIndex(stateDir);
  assert.deepEqual(Object.keys(again.index.messages).sort(), ["m3", "m4"]);

  write(workspace, { "a.txt": "later\n" });
  const restored = await checkpoints.restore(trees[2]);
  assert.ok(restored.ok, JSON.stringify(restored));
  assert.equal(readFileSync(join(workspace, "a.txt"), "utf8"), "version 3\n");
});

test("a snapshot of an unchanged workspace costs one git process; a changed, added or removed file is seen", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  // Files last written a minute ago, as most of a workspace is (git re-reads files written in the
  // same second as its index, which changes the index).
  const past = new Date(Date.now() - 60_000);
  const age = (at: Date, ...paths: string[]) => paths.forEach((path) => utimesSync(join(workspace, path), at, at));
  write(workspace, { "a.txt": "one\n", "dir/b.txt": "two\n" });
  age(past, "a.txt", "dir/b.txt");
  const real = createGit();
  const ran: string[] = [];
  const git = { ...real, run: (args: readonly string[], options?: Parameters<typeof real.run>[1]) => (ran.push(args[0]), real.run(args, options)) };
  const checkpoints = createCheckpoints({ workspace, stateDir, git });
  const tree = async (id: string) => {
    ran.length = 0;
    const taken = await checkpoints.beforeRun(id, "builtin");
    assert.ok(taken.ok && taken.value.tree, JSON.stringify(taken));
    return { tree: taken.value.tree, ran: ran.filter((name) => name === "add" || name === "write-tree") };
  };

  const first = await tree("u1");
  assert.deepEqual(first.ran, ["add", "write-tree"]);
  const second = await tree("u2");
  assert.deepEqual(second, { tree: first.tree, ran: ["add"] });

  // The same size, edited later.
  writeFileSync(join(workspace, "a.txt"), "ONE\n");
  age(new Date(past.getTime() + 5_000), "a.txt");
  const third = await tree("u3");
  assert.deepEqual(third.ran, ["add", "write-tree"]);
  assert.notEqual(third.tree, first.tree);
  assert.deepEqual(await tree("u4"), { tree: third.tree, ran: ["add"] });

  const restored = await checkpoints.restore(first.tree);
  assert.ok(restored.ok);
  assert.equal(readFileSync(join(workspace, "a.txt"), "utf8"), "one\n");
  const fifth = await tree("u5");
  assert.equal(fifth.tree, first.tree, "after a rewind the snapshot is the restored tree");
  rmSync(join(workspace, "dir"), { recursive: true });
  const sixth = await tree("u6");
  assert.deepEqual(sixth.ran, ["add", "write-tree"]);
  assert.notEqual(sixth.tree, first.tree);
  write(workspace, { "new.txt": "" });
  age(past, "new.txt");
  const seventh = await tree("u7");
  assert.deepEqual(seventh.ran, ["add", "write-tree"]);
  assert.notEqual(seventh.tree, sixth.tree);
});

test("messages reserved and pending take the next snapshot as theirs, across a restart; a failed one leaves them without", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "f.txt": "v1\n" });
  const first = createCheckpoints({ workspace, stateDir });
  await first.reserve("u1", "builtin");
  const reserved = await first.entry("u1");
  assert.equal(reserved?.pending, true);
  await first.reserve("u1", "other");
  assert.deepEqual(await first.entry("u1"), reserved, "a known message is left as it is");

  const restarted = createCheckpoints({ workspace, stateDir });
  await restarted.reserve("u2", "builtin");
  const taken = await restarted.beforeRun("u3", "builtin");
  assert.ok(taken.ok && taken.value.tree);
  for (const id of ["u1", "u2", "u3"]) {
    const entry = await restarted.entry(id);
    assert.equal(entry?.tree, taken.value.tree, id);
    assert.equal(entry?.pending, undefined, id);
  }
  assert.equal((await restarted.entry("u1"))?.createdAt, reserved?.createdAt);

  // A reserved message whose own run then takes the snapshot keeps its first record.
  await restarted.reserve("u4", "claude-code");
  write(workspace, { "f.txt": "v2\n" });
  const own = await restarted.beforeRun("u4", "builtin");
  assert.ok(own.ok && own.value.tree && own.value.tree !== taken.value.tree);
  assert.equal((await restarted.entry("u4"))?.backend, "claude-code");

  // When the snapshot fails, the messages pending have none either (an older one would be wrong).
  await restarted.reserve("u5", "builtin");
  rmSync(workspace, { recursive: true });
  const failed = await restarted.beforeRun("u6", "builtin");
  assert.equal(failed.ok, false);
  for (const id of ["u5", "u6"]) assert.deepEqual(await restarted.entry(id).then((e) => [e?.tree, e?.pending]), [undefined, undefined], id);
});

test("the index is a journal: a run appends a line whatever the length of the conversation; an older whole-file index is its start; a cut last line is skipped", needsGit, async (t) => {
  const { workspace, stateDir } = setup(t);
  write(workspace, { "f.txt": "v1\n" });
  mkdirSync(stateDir, { recursive: true });
  const old = { version: 1, messages: { legacy: { tree: "0123abcd", backend: "builtin", createdAt: "2026-01-01T00:00:00.000Z" } } };
  writeFileSync(join(stateDir, "checkpoints.json"), JSON.stringify(old));
  const checkpoints = createCheckpoints({ workspace, stateDir });
  const journal = () => readFileSync(join(stateDir, "checkpoints.jsonl"), "utf8");
  for (let i = 0; i < 50; i++) await checkpoints.reserve(`q${i}`, "builtin");
  const sizeAfter50 = journal().length;
  await checkpoints.reserve("q50", "builtin");
  assert.ok(journal().length - sizeAfter50 < 200, "one short line per reserved message");
  const taken = await checkpoints.beforeRun("edit", "builtin");
  assert.ok(taken.ok && taken.value.tree);
  assert.equal(journal().trim().split("\n").length, 53, "51 reservations, the snapshot's message and one line filling the pending ones");
  assert.equal(readFileSync(join(stateDir, "checkpoints.json"), "utf8"), JSON.stringify(old), "the old index is left as it was");

  // A crash in the middle of a line: that line is skipped, and no earlier change is lost.
  writeFileSync(join(stateDir, "checkpoints.jsonl"), `${journal()}{"id":"cut","entry":{"tre`);
  const { index, problems } = await readIndex(stateDir);
  assert.deepEqual(problems, []);
  assert.equal(index.messages.legacy.tree, "0123abcd");
  assert.equal(index.messages.q0.tree, taken.value.tree);
  assert.equal(index.messages.q50.tree, taken.value.tree);
  assert.equal(index.messages.cut, undefined);
  const restarted = createCheckpoints({ workspace, stateDir });
  assert.equal((await restarted.entry("q25"))?.tree, taken.value.tree);

  // A bad line elsewhere is named, and the lines after it still count.
  writeFileSync(join(stateDir, "checkpoints.jsonl"), `not json\n${JSON.stringify({ id: "later", entry: { backend: "builtin", createdAt: "x" } })}\n`);
  const damaged = await readIndex(stateDir);
  assert.equal(damaged.problems.length, 1);
  assert.match(damaged.problems[0], /checkpoints\.jsonl line 1 is not a checkpoint record: not JSON/);
  assert.equal(damaged.index.messages.later?.backend, "builtin");
});
