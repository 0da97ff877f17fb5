// `harness plugin marketplace remove`: the marketplace's plugins go with it, in every scope and
// project, as Claude Code's `claude plugin marketplace remove` uninstalls them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../test-support.ts";
import { marketplaceDir, pluginPlace, readJson } from "./test-support.ts";

/** The "team-tools" marketplace with a second plugin, "waver", beside the greeter. */
function twoPluginMarketplace(t: { after(fn: () => unknown): void }): string {
  const market = marketplaceDir(t, [{ name: "waver", source: "./plugins/waver" }]);
  const waver = join(market, "plugins", "waver");
  mkdirSync(join(waver, ".claude-plugin"), { recursive: true });
  mkdirSync(join(waver, "commands"));
  writeFileSync(join(waver, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "waver", version: "2.0.0" }));
  writeFileSync(join(waver, "commands", "wave.md"), "Wave.");
  return market;
}

/** A marketplace added with greeter installed for the user, waver for the project and greeter again
 * locally in a second project, beside "other-tools", whose greeter must stay. */
async function installedEverywhere(t: { after(fn: () => unknown): void }) {
  const p = pluginPlace(t);
  const second = tempDir(t);
  mkdirSync(join(second, ".git"));
  for (const market of [twoPluginMarketplace(t), marketplaceDir(t, [], "other-tools")]) {
    const added = await p.run(["marketplace", "add", market]);
    assert.equal(added.code, 0, added.stderr);
  }
  for (const [args, cwd] of [
    [["install", "greeter@team-tools"], p.project],
    [["install", "waver@team-tools", "--scope", "project"], p.project],
    [["install", "greeter@team-tools", "--scope", "local"], second],
    [["install", "greeter@other-tools"], p.project],
  ] as const) {
    const installed = await p.run([...args], cwd);
    assert.equal(installed.code, 0, installed.stderr);
  }
  return {
    p,
    second,
    projectSettings: join(p.project, ".claude", "settings.json"),
    secondLocalSettings: join(second, ".claude", "settings.local.json"),
  };
}

test("marketplace remove uninstalls its plugins in every scope and project, one line each, and leaves other marketplaces' plugins", async (t) => {
  const { p, second, projectSettings, secondLocalSettings } = await installedEverywhere(t);
  writeFileSync(projectSettings, JSON.stringify({ ...readJson(projectSettings), model: "opus" }));

  const removed = await p.run(["marketplace", "remove", "team-tools"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual(removed.stdout.trimEnd().split("\n"), [
    "Uninstalled greeter@team-tools (user scope).",
    `Uninstalled greeter@team-tools (local scope, in ${second}).`,
    "Uninstalled waver@team-tools (project scope).",
    'Removed marketplace "team-tools".',
  ]);
  assert.deepEqual(Object.keys(readJson(p.installedFile).plugins), ["greeter@other-tools"]);
  assert.deepEqual(readJson(p.userSettings).enabledPlugins, { "greeter@other-tools": true });
  assert.deepEqual(readJson(projectSettings), { enabledPlugins: {}, model: "opus" });
  assert.deepEqual(readJson(secondLocalSettings).enabledPlugins, {});
  assert.ok(!existsSync(join(p.cache, "team-tools")), "the marketplace's cached plugins are removed");
  assert.ok(existsSync(join(p.cache, "other-tools", "greeter", "0.1.0", "commands", "hello.md")));
  assert.deepEqual(Object.keys(readJson(p.knownFile)), ["other-tools"]);
  assert.match((await p.run(["list"])).stdout, /greeter@other-tools/);
});

test("marketplace remove still uninstalls the other plugins when one cannot be, names it, fails, and keeps the marketplace to try again", async (t) => {
  const { p, second, secondLocalSettings } = await installedEverywhere(t);
  writeFileSync(secondLocalSettings, "{ not json");

  const removed = await p.run(["marketplace", "remove", "team-tools"]);
  assert.equal(removed.code, 1);
  assert.match(removed.stderr, new RegExp(`greeter@team-tools \\(local scope, in ${second}\\) was not uninstalled: .*settings\\.local\\.json`));
  assert.match(removed.stderr, /marketplace "team-tools" is kept/);
  assert.equal(removed.stderr.trimEnd().split("\n").length, 2, removed.stderr);
  assert.match(removed.stdout, /Uninstalled greeter@team-tools \(user scope\)\./);
  assert.match(removed.stdout, /Uninstalled waver@team-tools \(project scope\)\./);
  const plugins = readJson(p.installedFile).plugins;
  assert.deepEqual(Object.keys(plugins).sort(), ["greeter@other-tools", "greeter@team-tools"]);
  assert.deepEqual(plugins["greeter@team-tools"].map((e: { scope: string }) => e.scope), ["local"]);
  assert.ok(existsSync(plugins["greeter@team-tools"][0].installPath), "the copy still recorded is kept");
  assert.deepEqual(Object.keys(readJson(p.knownFile)).sort(), ["other-tools", "team-tools"]);

  writeFileSync(secondLocalSettings, JSON.stringify({ enabledPlugins: { "greeter@team-tools": true } }));
  const again = await p.run(["marketplace", "remove", "team-tools"]);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(again.stdout.trimEnd().split("\n"), [`Uninstalled greeter@team-tools (local scope, in ${second}).`, 'Removed marketplace "team-tools".']);
  assert.deepEqual(Object.keys(readJson(p.installedFile).plugins), ["greeter@other-tools"]);
  assert.ok(!existsSync(join(p.cache, "team-tools")));
});

test("marketplace remove of a project's plugin whose project is gone removes its record without making the project's files again", async (t) => {
  const p = pluginPlace(t);
  const gone = join(tempDir(t), "gone");
  mkdirSync(join(gone, ".git"), { recursive: true });
  assert.equal((await p.run(["marketplace", "add", marketplaceDir(t)])).code, 0);
  assert.equal((await p.run(["install", "greeter@team-tools", "--scope", "project"], gone)).code, 0);
  rmSync(gone, { recursive: true });

  const removed = await p.run(["marketplace", "remove", "team-tools"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stdout, /Uninstalled greeter@team-tools \(project scope, in .*gone\)\./);
  assert.deepEqual(readJson(p.installedFile).plugins, {});
  assert.ok(!existsSync(gone), "no settings file is made for a project that is gone");
});
