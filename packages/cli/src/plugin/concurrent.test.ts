// `harness plugin` commands run at once: each changes installed_plugins.json and the settings under
// the file's lock, so none loses another's change.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { marketplaceDir, pluginPlace, readJson } from "./test-support.ts";

/** A marketplace "team-tools" listing the greeter and `names` more plugins, each with a command. */
function marketplaceOf(t: { after(fn: () => unknown): void }, names: string[]): string {
  const market = marketplaceDir(t, names.map((name) => ({ name, source: `./plugins/${name}` })));
  for (const name of names) {
    const plugin = join(market, "plugins", name);
    mkdirSync(join(plugin, ".claude-plugin"), { recursive: true });
    mkdirSync(join(plugin, "commands"));
    writeFileSync(join(plugin, ".claude-plugin", "plugin.json"), JSON.stringify({ name, version: "1.0.0" }));
    writeFileSync(join(plugin, "commands", "go.md"), `Run ${name}.`);
  }
  return market;
}

test("installs started at once are all recorded and enabled", async (t) => {
  const p = pluginPlace(t);
  const names = ["greeter", "waver", "nodder", "pointer", "shrugger", "clapper"];
  assert.equal((await p.run(["marketplace", "add", marketplaceOf(t, names.slice(1))])).code, 0);

  const results = await Promise.all(names.map((name) => p.run(["install", `${name}@team-tools`])));
  for (const result of results) assert.equal(result.code, 0, result.stderr);
  const ids = names.map((name) => `${name}@team-tools`).sort();
  assert.deepEqual(Object.keys(readJson(p.installedFile).plugins).sort(), ids);
  assert.deepEqual(Object.keys(readJson(p.userSettings).enabledPlugins).sort(), ids);
  assert.ok(!existsSync(`${p.installedFile}.lock`) && !existsSync(`${p.userSettings}.lock`), "no lock is left behind");
});

test("an uninstall racing installs loses none of them, and its own change stays", async (t) => {
  const p = pluginPlace(t);
  const names = ["greeter", "waver", "nodder", "pointer"];
  assert.equal((await p.run(["marketplace", "add", marketplaceOf(t, names.slice(1))])).code, 0);
  assert.equal((await p.run(["install", "greeter@team-tools"])).code, 0);

  const results = await Promise.all([p.run(["uninstall", "greeter@team-tools"]), ...names.slice(1).map((name) => p.run(["install", `${name}@team-tools`]))]);
  for (const result of results) assert.equal(result.code, 0, result.stderr);
  const ids = names.slice(1).map((name) => `${name}@team-tools`).sort();
  assert.deepEqual(Object.keys(readJson(p.installedFile).plugins).sort(), ids);
  assert.deepEqual(Object.keys(readJson(p.userSettings).enabledPlugins).sort(), ids);
  assert.ok(!existsSync(join(p.cache, "team-tools", "greeter", "0.1.0")));
});

test("an uninstall racing an install of the same copy (the same version in another scope) leaves the copy the install recorded", async (t) => {
  const p = pluginPlace(t);
  assert.equal((await p.run(["marketplace", "add", marketplaceDir(t)])).code, 0);
  const copy = join(p.cache, "team-tools", "greeter", "0.1.0");
  for (let round = 0; round < 8; round++) {
    assert.equal((await p.run(["install", "greeter@team-tools"])).code, 0);
    const [uninstalled, installed] = await Promise.all([p.run(["uninstall", "greeter@team-tools", "--scope", "user"]), p.run(["install", "greeter@team-tools", "--scope", "project"])]);
    assert.equal(uninstalled.code, 0, uninstalled.stderr);
    assert.equal(installed.code, 0, installed.stderr);
    assert.deepEqual(readJson(p.installedFile).plugins["greeter@team-tools"].map((e: { scope: string }) => e.scope), ["project"]);
    assert.ok(existsSync(join(copy, "commands", "hello.md")), `round ${round}: the project's recorded copy is there`);
    assert.equal((await p.run(["uninstall", "greeter@team-tools"])).code, 0);
  }
});
