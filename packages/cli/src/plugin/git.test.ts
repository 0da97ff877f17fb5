// `harness plugin` with git: a marketplace cloned from a repository (file:// here, as https and ssh
// are cloned the same way), its plugins by relative path and from repositories of their own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../test-support.ts";
import { commitAll, git, gitRepo, marketplaceDir, pluginPlace, readJson, writeMarketplace } from "./test-support.ts";

/** A repository holding one plugin, "echoer", at its root (no version in its plugin.json). */
function echoerRepo(t: { after(fn: () => unknown): void }): { url: string; sha: string } {
  const dir = tempDir(t);
  mkdirSync(join(dir, ".claude-plugin"));
  mkdirSync(join(dir, "commands"));
  writeFileSync(join(dir, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "echoer" }));
  writeFileSync(join(dir, "commands", "echo.md"), "Echo $ARGUMENTS.");
  const url = gitRepo(dir);
  return { url, sha: git(dir, "rev-parse", "HEAD") };
}

test("a marketplace cloned from a git URL installs its plugins for the project, and update brings its new ones", async (t) => {
  const p = pluginPlace(t);
  const echoer = echoerRepo(t);
  const market = marketplaceDir(t, [{ name: "echoer", source: { source: "url", url: echoer.url } }], "git-tools");
  const url = gitRepo(market);

  const added = await p.run(["marketplace", "add", url]);
  assert.equal(added.code, 0, added.stderr);
  const location = join(p.home, ".claude", "plugins", "marketplaces", "git-tools");
  const known = readJson(p.knownFile)["git-tools"];
  assert.deepEqual(known.source, { source: "git", url });
  assert.equal(known.installLocation, location);
  assert.ok(existsSync(join(location, ".claude-plugin", "marketplace.json")));

  const installed = await p.run(["install", "greeter@git-tools", "--scope", "project"]);
  assert.equal(installed.code, 0, installed.stderr);
  const [entry] = readJson(p.installedFile).plugins["greeter@git-tools"];
  assert.equal(entry.scope, "project");
  assert.equal(entry.projectPath, p.project);
  assert.equal(entry.version, "0.1.0");
  assert.deepEqual(readJson(join(p.project, ".claude", "settings.json")), { enabledPlugins: { "greeter@git-tools": true } });
  assert.ok(!existsSync(p.userSettings), "a project install leaves the user's settings alone");

  const local = await p.run(["install", "echoer@git-tools", "--scope", "local"]);
  assert.equal(local.code, 0, local.stderr);
  const [echo] = readJson(p.installedFile).plugins["echoer@git-tools"];
  assert.equal(echo.scope, "local");
  assert.equal(echo.gitCommitSha, echoer.sha);
  assert.equal(echo.version, echoer.sha.slice(0, 12));
  assert.equal(echo.installPath, join(p.cache, "git-tools", "echoer", echoer.sha.slice(0, 12)));
  assert.ok(existsSync(join(echo.installPath, "commands", "echo.md")));
  assert.deepEqual(readJson(join(p.project, ".claude", "settings.local.json")), { enabledPlugins: { "echoer@git-tools": true } });

  const list = await p.run(["list"]);
  assert.match(list.stdout, /greeter@git-tools.*0\.1\.0.*project.*enabled/);
  assert.match(list.stdout, /echoer@git-tools.*local.*enabled/);

  assert.equal((await p.run(["install", "later@git-tools"])).code, 1);
  const later = join(market, "plugins", "later");
  mkdirSync(join(later, "commands"), { recursive: true });
  writeFileSync(join(later, "commands", "x.md"), "X.");
  writeMarketplace(market, { name: "git-tools", owner: { name: "T" }, plugins: [{ name: "later", source: "./plugins/later", version: "2.0.0" }] });
  commitAll(market, "later");
  const updated = await p.run(["marketplace", "update", "git-tools"]);
  assert.equal(updated.code, 0, updated.stderr);
  const after = await p.run(["install", "later@git-tools"]);
  assert.equal(after.code, 0, after.stderr);
  assert.equal(readJson(p.installedFile).plugins["later@git-tools"][0].version, "2.0.0");

  const removed = await p.run(["marketplace", "remove", "git-tools"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.ok(!existsSync(location), "the clone is removed with the marketplace");
});

test("a git-subdir source installs the plugin in a folder of a repository, and refuses a folder outside it", async (t) => {
  const p = pluginPlace(t);
  const repo = tempDir(t);
  const plugin = join(repo, "providers", "claude");
  mkdirSync(join(plugin, "commands"), { recursive: true });
  writeFileSync(join(plugin, "commands", "deploy.md"), "Deploy.");
  writeFileSync(join(repo, "README.md"), "Not part of the plugin.");
  const url = gitRepo(repo);
  const market = marketplaceDir(t, [
    { name: "deployer", version: "1.2.0", source: { source: "git-subdir", url, path: "providers/claude" } },
    { name: "escaper", source: { source: "git-subdir", url, path: "../.." } },
  ]);
  assert.equal((await p.run(["marketplace", "add", market])).code, 0);

  const installed = await p.run(["install", "deployer@team-tools"]);
  assert.equal(installed.code, 0, installed.stderr);
  const installPath = join(p.cache, "team-tools", "deployer", "1.2.0");
  assert.ok(existsSync(join(installPath, "commands", "deploy.md")));
  assert.ok(!existsSync(join(installPath, "README.md")), "only the folder is installed");
  assert.equal(readJson(p.installedFile).plugins["deployer@team-tools"][0].gitCommitSha, git(repo, "rev-parse", "HEAD"));

  const escaped = await p.run(["install", "escaper@team-tools"]);
  assert.equal(escaped.code, 1);
  assert.match(escaped.stderr, /"\.\.\/\.\." of file:.* leads out of its repository/);
  assert.equal(readJson(p.installedFile).plugins["escaper@team-tools"], undefined);
  assert.ok(!existsSync(join(p.cache, "team-tools", "escaper")));
});
