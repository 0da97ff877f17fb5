// A plugin's data directory (${CLAUDE_PLUGIN_DATA}, ~/.claude/plugins/data/<id>) goes with its last
// installation, as in Claude Code, unless --keep-data keeps it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { marketplaceDir, pluginPlace } from "./test-support.ts";

function withData(home: string): string {
  const data = join(home, ".claude", "plugins", "data", "greeter-team-tools");
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, "state.json"), "{}");
  return data;
}

test("uninstalling a plugin's last installation removes its data directory; one in another scope keeps it", async (t) => {
  const p = pluginPlace(t);
  assert.equal((await p.run(["marketplace", "add", marketplaceDir(t)])).code, 0);
  assert.equal((await p.run(["install", "greeter@team-tools"])).code, 0);
  assert.equal((await p.run(["install", "greeter@team-tools", "--scope", "project"])).code, 0);
  const data = withData(p.home);

  const first = await p.run(["uninstall", "greeter@team-tools", "--scope", "project"]);
  assert.equal(first.code, 0, first.stderr);
  assert.ok(existsSync(join(data, "state.json")), "the user scope's installation still uses it");
  assert.doesNotMatch(first.stdout, /data/);

  const last = await p.run(["uninstall", "greeter@team-tools"]);
  assert.equal(last.code, 0, last.stderr);
  assert.equal(existsSync(data), false);
  assert.match(last.stdout, /Uninstalled greeter@team-tools \(user scope\)\.\nRemoved its data directory .*greeter-team-tools\.\n/);
});

test("--keep-data keeps the data directory; other commands refuse the flag", async (t) => {
  const p = pluginPlace(t);
  assert.equal((await p.run(["marketplace", "add", marketplaceDir(t)])).code, 0);
  assert.equal((await p.run(["install", "greeter@team-tools"])).code, 0);
  const data = withData(p.home);
  const kept = await p.run(["uninstall", "greeter@team-tools", "--keep-data"]);
  assert.equal(kept.code, 0, kept.stderr);
  assert.ok(existsSync(join(data, "state.json")));
  assert.doesNotMatch(kept.stdout, /data/);

  const refused = await p.run(["install", "greeter@team-tools", "--keep-data"]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--keep-data/);
});
