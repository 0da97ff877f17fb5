import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { environmentBlock } from "./environment.ts";
import { GIT_STATUS_MAX_LINES, gitSnapshot } from "./git-snapshot.ts";

let root: string;
before(async () => {
  root = await mkdtemp(path.join(tmpdir(), "environment-"));
});
after(() => rm(root, { recursive: true, force: true }));

const gitEnv = {
  ...process.env,
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};
const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, env: gitEnv, stdio: "pipe" }).toString();
const signal = () => new AbortController().signal;

describe("gitSnapshot", () => {
  test("a real repository: branch, main branch, short status and the last five commits", async () => {
    const repo = path.join(root, "repo");
    await mkdir(repo);
    git(repo, "init", "-q", "-b", "main");
    for (let i = 1; i <= 6; i++) {
      await writeFile(path.join(repo, "file.txt"), `v${i}\n`);
      git(repo, "add", "file.txt");
      git(repo, "commit", "-q", "-m", `commit number ${i}`);
    }
    git(repo, "checkout", "-q", "-b", "feature/x");
    await writeFile(path.join(repo, "file.txt"), "changed\n");
    await writeFile(path.join(repo, "new.txt"), "new\n");

    const snapshot = await gitSnapshot(repo, signal());
    assert.equal(snapshot.isRepo, true);
    if (!snapshot.isRepo) return;
    assert.equal(snapshot.branch, "feature/x");
    assert.equal(snapshot.mainBranch, "main");
    assert.equal(snapshot.status, " M file.txt\n?? new.txt");
    const commits = snapshot.recentCommits.split("\n");
    assert.equal(commits.length, 5);
    assert.match(commits[0]!, /^[0-9a-f]+ commit number 6$/);
    assert.match(commits[4]!, /commit number 2$/);

    const block = environmentBlock({ cwd: repo, model: "claude-test", platform: "linux", osVersion: "Linux 6.1", date: new Date(2025, 2, 7), git: snapshot });
    assert.match(block, /Is directory a git repo: Yes/);
    assert.match(block, /Current branch: feature\/x/);
    assert.match(block, /Main branch \(you will usually use this for PRs\): main/);
    assert.match(block, /Status:\n M file\.txt\n\?\? new\.txt\n/);
    assert.match(block, /Recent commits:\n[0-9a-f]+ commit number 6/);
  });

  test("a status longer than the cap is cut with a note", async () => {
    const repo = path.join(root, "busy");
    await mkdir(repo);
    git(repo, "init", "-q", "-b", "main");
    for (let i = 0; i < GIT_STATUS_MAX_LINES + 7; i++) await writeFile(path.join(repo, `f${String(i).padStart(3, "0")}.txt`), "x");
    const snapshot = await gitSnapshot(repo, signal());
    assert.equal(snapshot.isRepo, true);
    if (!snapshot.isRepo) return;
    const lines = snapshot.status.split("\n");
    assert.equal(lines.length, GIT_STATUS_MAX_LINES + 1);
    assert.match(lines.at(-1)!, /7 more lines not shown/);
    assert.equal(snapshot.recentCommits, "(no commits yet)");
    assert.equal(snapshot.branch, "main");
    assert.equal(snapshot.mainBranch, undefined, "an unborn branch is no known main branch");
  });

  test("a directory outside any repository, and a missing directory, are not repositories", async () => {
    const plain = path.join(root, "plain");
    await mkdir(plain);
    await writeFile(path.join(plain, ".git"), "gitdir: /nonexistent\n");
    assert.equal((await gitSnapshot(plain, signal())).isRepo, false);
    assert.equal((await gitSnapshot(path.join(root, "missing"), signal())).isRepo, false);
  });

  test("an aborted signal ends the snapshot at once", async () => {
    const controller = new AbortController();
    controller.abort();
    const snapshot = await gitSnapshot(root, controller.signal);
    assert.equal(snapshot.isRepo, false);
  });
});

describe("environmentBlock", () => {
  test("names the working directory, platform, OS, date and model", () => {
    const block = environmentBlock({ cwd: "/work/app", model: "claude-x", platform: "linux", osVersion: "Linux 6.8.0", date: new Date(2025, 0, 5, 23, 30), git: { isRepo: false } });
    assert.equal(
      block,
      [
        "Here is useful information about the environment you are running in:",
        "<env>",
        "Working directory: /work/app",
        "Is directory a git repo: No",
        "Platform: linux",
        "OS Version: Linux 6.8.0",
        "Today's date: 2025-01-05",
        "</env>",
        "You are powered by the model claude-x.",
      ].join("\n"),
    );
  });

  test("equal inputs give identical text; without git info the repo line is left out", () => {
    const options = { cwd: "/w", model: "m", date: new Date(2024, 11, 31) };
    assert.equal(environmentBlock(options), environmentBlock({ ...options }));
    assert.doesNotMatch(environmentBlock(options), /git repo/);
    assert.match(environmentBlock(options), /Today's date: 2024-12-31/);
  });
});
