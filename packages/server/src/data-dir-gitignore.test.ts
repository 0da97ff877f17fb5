// `harness serve` in a project keeps its sessions in ./.harness: the conversations, the database and
// the workspaces must not show up in the project's `git status`, to be committed by mistake.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startServer } from "./index.ts";
import { testDir } from "./test-helpers.ts";

const git = (cwd: string, ...args: string[]) => execFileSync("git", args, { cwd, encoding: "utf8" });

test("a data directory made in a git project keeps itself out of git status", async (t) => {
  const project = await testDir(t, "harness-gitignore-project-");
  git(project, "init", "-q");
  writeFileSync(join(project, "index.js"), "console.log(1)\n");
  const server = await startServer({ port: 0, dataDir: join(project, ".harness"), log: () => {}, env: { ...process.env, ANTHROPIC_API_KEY: "test-key" } });
  await server.close();
  assert.equal(git(project, "status", "--porcelain", "--untracked-files=all"), "?? index.js\n");
});

test("a .gitignore the user wrote in the data directory is left as it is", async (t) => {
  const dataDir = await testDir(t, "harness-gitignore-data-");
  writeFileSync(join(dataDir, ".gitignore"), "harness.db\n");
  const server = await startServer({ port: 0, dataDir, log: () => {}, env: { ...process.env, ANTHROPIC_API_KEY: "test-key" } });
  await server.close();
  assert.equal(readFileSync(join(dataDir, ".gitignore"), "utf8"), "harness.db\n");
});
