// `harness plugin`: a marketplace added from a directory, a plugin installed from it and seen by a
// run, then disabled, enabled and uninstalled, in the files Claude Code reads and writes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, withFake } from "../test-support.ts";
import { marketplaceDir, pluginPlace, readJson } from "./test-support.ts";

/** The init line of a stream-json run of `prompt` in the project. */
async function runInit(p: ReturnType<typeof pluginPlace>, fakeUrl: string, prompt = "hi") {
  const { code, stdout, stderr } = await harness(
    ["run", "--model", "claude-sonnet-4-6", "--output-format", "stream-json", prompt],
    { HOME: p.home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fakeUrl },
    { cwd: p.project },
  ).result;
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout.split("\n")[0]!) as { plugins: { name: string; path: string }[]; slash_commands: string[]; skills: string[] };
}

test("a plugin installed from a marketplace directory is loaded by runs, until it is disabled or uninstalled", async (t) => {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Hello, Ada." }, { text: "Hi." }, { text: "Hi." }, { text: "Hi." }] }));
  const p = pluginPlace(t);
  const market = marketplaceDir(t);
  mkdirSync(join(p.home, ".claude"), { recursive: true });
  writeFileSync(p.userSettings, JSON.stringify({ cleanupPeriodDays: 30, enabledPlugins: { "other@elsewhere": false } }));

  const added = await p.run(["marketplace", "add", market]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /team-tools/);
  const known = readJson(p.knownFile);
  assert.deepEqual(known["team-tools"].source, { source: "directory", path: market });
  assert.equal(known["team-tools"].installLocation, market);
  assert.ok(!Number.isNaN(Date.parse(known["team-tools"].lastUpdated)));
  const listed = await p.run(["marketplace", "list"]);
  assert.match(listed.stdout, /team-tools/);
  assert.ok(listed.stdout.includes(market), listed.stdout);

  const installed = await p.run(["install", "greeter@team-tools"]);
  assert.equal(installed.code, 0, installed.stderr);
  const installPath = join(p.cache, "team-tools", "greeter", "0.1.0");
  assert.ok(existsSync(join(installPath, "commands", "hello.md")));
  const record = readJson(p.installedFile);
  assert.equal(record.version, 2);
  const [entry] = record.plugins["greeter@team-tools"];
  assert.equal(entry.scope, "user");
  assert.equal(entry.installPath, installPath);
  assert.equal(entry.version, "0.1.0");
  assert.ok(!Number.isNaN(Date.parse(entry.installedAt)) && !Number.isNaN(Date.parse(entry.lastUpdated)));
  assert.equal(entry.projectPath, undefined);
  assert.deepEqual(readJson(p.userSettings), { cleanupPeriodDays: 30, enabledPlugins: { "other@elsewhere": false, "greeter@team-tools": true } });

  let init = await runInit(p, fake.url, "/greeter:hello Ada");
  assert.deepEqual(init.plugins, [{ name: "greeter", path: installPath }]);
  assert.ok(init.slash_commands.includes("greeter:hello"), String(init.slash_commands));
  assert.ok(init.skills.includes("greeter:shout"), String(init.skills));
  assert.match(JSON.stringify(fake.requests[0]!.body.messages), /Greet Ada warmly\./);

  const list = await p.run(["list"]);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /greeter@team-tools/);
  assert.match(list.stdout, /0\.1\.0/);
  assert.match(list.stdout, /user/);
  assert.match(list.stdout, /enabled/);

  const disabled = await p.run(["disable", "greeter@team-tools"]);
  assert.equal(disabled.code, 0, disabled.stderr);
  assert.equal(readJson(p.userSettings).enabledPlugins["greeter@team-tools"], false);
  assert.match((await p.run(["list"])).stdout, /disabled/);
  init = await runInit(p, fake.url);
  assert.deepEqual(init.plugins, []);

  assert.equal((await p.run(["enable", "greeter@team-tools"])).code, 0);
  init = await runInit(p, fake.url);
  assert.deepEqual(init.plugins.map((plugin) => plugin.name), ["greeter"]);

  const removed = await p.run(["uninstall", "greeter@team-tools"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual(readJson(p.installedFile).plugins, {});
  assert.deepEqual(readJson(p.userSettings), { cleanupPeriodDays: 30, enabledPlugins: { "other@elsewhere": false } });
  assert.ok(!existsSync(installPath), "the copy nothing uses any more is removed");
  init = await runInit(p, fake.url);
  assert.deepEqual(init.plugins, []);
  assert.match((await p.run(["list"])).stdout, /No plugins are installed/);
  assert.ok(readFileSync(join(market, "plugins", "greeter", "commands", "hello.md"), "utf8"), "the marketplace's own plugin is left alone");
});

test("marketplace remove forgets the marketplace and leaves a directory marketplace's files alone", async (t) => {
  const p = pluginPlace(t);
  const market = marketplaceDir(t);
  assert.equal((await p.run(["marketplace", "add", market])).code, 0);
  const removed = await p.run(["marketplace", "remove", "team-tools"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual(readJson(p.knownFile), {});
  assert.ok(existsSync(join(market, ".claude-plugin", "marketplace.json")));
  const install = await p.run(["install", "greeter@team-tools"]);
  assert.equal(install.code, 1);
  assert.match(install.stderr, /unknown marketplace "team-tools"/);
});

test("a plugin whose version is too long for a directory name installs under a shortened one, two such versions stay apart, and a version's control characters are dropped", async (t) => {
  const p = pluginPlace(t);
  const market = marketplaceDir(t);
  const manifest = join(market, "plugins", "greeter", ".claude-plugin", "plugin.json");
  const long = (tail: string) => `1.0.0-${"x".repeat(200)}${tail}`;
  writeFileSync(manifest, JSON.stringify({ name: "greeter", version: long("a") }));
  assert.equal((await p.run(["marketplace", "add", market])).code, 0);
  const first = await p.run(["install", "greeter@team-tools"]);
  assert.equal(first.code, 0, first.stderr);
  const [installed] = readJson(p.installedFile).plugins["greeter@team-tools"];
  assert.equal(installed.version, long("a"), "the record keeps the version as the plugin gives it");
  assert.ok(existsSync(installed.installPath));
  assert.ok(installed.installPath.split("/").at(-1)!.length <= 100);
  writeFileSync(manifest, JSON.stringify({ name: "greeter", version: long("b") }));
  assert.equal((await p.run(["marketplace", "update", "team-tools"])).code, 0);
  const second = await p.run(["install", "greeter@team-tools"]);
  assert.equal(second.code, 0, second.stderr);
  const [again] = readJson(p.installedFile).plugins["greeter@team-tools"];
  assert.notEqual(again.installPath, installed.installPath);
  writeFileSync(manifest, JSON.stringify({ name: "greeter", version: "2.0\u001b]0;owned\u0007" }));
  assert.equal((await p.run(["marketplace", "update", "team-tools"])).code, 0);
  const third = await p.run(["install", "greeter@team-tools"]);
  assert.equal(third.code, 0, third.stderr);
  assert.doesNotMatch(third.stdout, /\u001b|\u0007/, "no control character of the version reaches the terminal");
  assert.equal(readJson(p.installedFile).plugins["greeter@team-tools"][0].version, "2.0]0;owned");
});
