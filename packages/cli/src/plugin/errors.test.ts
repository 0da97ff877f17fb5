// `harness plugin` refusing what it cannot use: each refusal one line on stderr, exit status 1, and
// nothing already stored changed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { harness, tempDir } from "../test-support.ts";
import { gitRepo, marketplaceDir, pluginPlace, writeMarketplace } from "./test-support.ts";

function refused(result: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, pattern);
  assert.equal(result.stderr.trimEnd().split("\n").length, 1, result.stderr);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
}

test("marketplace add refuses a directory without a marketplace.json, one that is not JSON, or one without name or plugins", async (t) => {
  const p = pluginPlace(t);
  const empty = tempDir(t);
  refused(await p.run(["marketplace", "add", empty]), /no \.claude-plugin\/marketplace\.json/);
  writeMarketplace(empty, "{ nope");
  refused(await p.run(["marketplace", "add", empty]), /marketplace\.json.*not valid JSON/);
  writeMarketplace(empty, { owner: { name: "x" }, plugins: [] });
  refused(await p.run(["marketplace", "add", empty]), /marketplace\.json.*name/);
  writeMarketplace(empty, { name: "x" });
  refused(await p.run(["marketplace", "add", empty]), /marketplace\.json.*plugins/);
  writeMarketplace(empty, { name: "../up", plugins: [] });
  refused(await p.run(["marketplace", "add", empty]), /marketplace\.json.*name/);
  refused(await p.run(["marketplace", "add", join(empty, "missing")]), /does not exist/);
  assert.ok(!existsSync(p.knownFile), "nothing was recorded");
});

test("marketplace add says what git said when the clone fails", async (t) => {
  const p = pluginPlace(t);
  const missing = pathToFileURL(join(tempDir(t), "no-such-repo")).href;
  refused(await p.run(["marketplace", "add", missing]), /git clone.*failed.*(does not exist|not found|not appear to be a git repository)/i);
  assert.ok(!existsSync(p.knownFile));
  assert.ok(!existsSync(join(p.home, ".claude", "plugins", "marketplaces")) || readDirEmpty(join(p.home, ".claude", "plugins", "marketplaces")));
});

function readDirEmpty(dir: string): boolean {
  return readdirSync(dir).length === 0;
}

test("install refuses an unknown marketplace, a plugin the marketplace does not list, and a path leading out of it, changing nothing", async (t) => {
  const p = pluginPlace(t);
  const market = marketplaceDir(t, [{ name: "sneaky", source: "../outside" }, { name: "far", source: { source: "npm", package: "x" } }]);
  mkdirSync(join(p.home, ".claude"), { recursive: true });
  writeFileSync(p.userSettings, '{"cleanupPeriodDays": 30}');
  refused(await p.run(["install", "greeter@nowhere"]), /unknown marketplace "nowhere".*harness plugin marketplace add/);
  assert.equal((await p.run(["marketplace", "add", market])).code, 0);
  refused(await p.run(["install", "nobody@team-tools"]), /no plugin "nobody" in marketplace "team-tools".*greeter/);
  // Names an object has of its own kind are no marketplace either.
  for (const name of ["constructor", "toString", "__proto__"]) refused(await p.run(["install", `greeter@${name}`]), new RegExp(`unknown marketplace "${name}" \\(known: team-tools\\)`));
  refused(await p.run(["install", "sneaky@team-tools"]), /"\.\.\/outside".*leads out of the marketplace/);
  refused(await p.run(["install", "far@team-tools"]), /npm.*not supported/);
  refused(await p.run(["uninstall", "greeter@team-tools"]), /not installed/);
  refused(await p.run(["enable", "greeter@team-tools"]), /not installed/);
  assert.ok(!existsSync(p.installedFile));
  assert.equal(readFileSync(p.userSettings, "utf8"), '{"cleanupPeriodDays": 30}');
  assert.ok(!existsSync(join(p.cache, "team-tools", "sneaky")));
});

test("install leaves installed_plugins.json and the settings as they were when one of them cannot be read", async (t) => {
  const p = pluginPlace(t);
  const market = marketplaceDir(t);
  assert.equal((await p.run(["marketplace", "add", market])).code, 0);
  mkdirSync(join(p.home, ".claude"), { recursive: true });
  writeFileSync(p.userSettings, "{ broken");
  refused(await p.run(["install", "greeter@team-tools"]), /settings\.json/);
  assert.equal(readFileSync(p.userSettings, "utf8"), "{ broken");
  assert.ok(!existsSync(p.installedFile));
  assert.ok(!existsSync(join(p.cache, "team-tools", "greeter")), "no copy is left behind");
});

test("usage errors name the problem and point at the help", async (t) => {
  const p = pluginPlace(t);
  const bad = await p.run(["install", "greeter@team-tools", "--scope", "everywhere"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--scope must be one of user, project, local/);
  const help = await p.run(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /harness plugin install/);
});

test("install refuses a ref or commit that git would read as an option, and a plugin holding a link that leads out of it, running nothing", async (t) => {
  const p = pluginPlace(t);
  const witness = join(tempDir(t), "ran");
  const repo = tempDir(t);
  writeFileSync(join(repo, "README.md"), "plugin");
  const url = gitRepo(repo);
  const secret = join(tempDir(t), "secret.txt");
  writeFileSync(secret, "do not copy");
  const linkedRepo = tempDir(t);
  mkdirSync(join(linkedRepo, "commands"));
  symlinkSync(secret, join(linkedRepo, "commands", "leak.md"));
  const linkedUrl = gitRepo(linkedRepo);
  const market = marketplaceDir(t, [
    { name: "clonedlink", source: { source: "url", url: linkedUrl } },
    { name: "optsha", source: { source: "url", url, sha: `--upload-pack=touch ${witness}` } },
    { name: "optref", source: { source: "url", url, ref: "--upload-pack=x" } },
    { name: "linked", source: "./plugins/linked" },
  ]);
  mkdirSync(join(market, "plugins", "linked", "commands"), { recursive: true });
  symlinkSync(secret, join(market, "plugins", "linked", "commands", "leak.md"));
  assert.equal((await p.run(["marketplace", "add", market])).code, 0);
  refused(await p.run(["install", "optsha@team-tools"]), /"sha".*not a commit/);
  refused(await p.run(["install", "optref@team-tools"]), /"ref".*not a branch or tag/);
  assert.ok(!existsSync(witness), "git ran no command named in the marketplace");
  refused(await p.run(["install", "linked@team-tools"]), /commands\/leak\.md.*link.*leads out of/);
  assert.ok(!existsSync(join(p.cache, "team-tools", "linked")));
  refused(await p.run(["install", "clonedlink@team-tools"]), /commands\/leak\.md.*link.*leads out of/);
  assert.ok(!existsSync(join(p.cache, "team-tools", "clonedlink")));
  assert.ok(!existsSync(p.installedFile));
});

test("a git server that accepts and then says nothing fails the clone instead of hanging the command", async (t) => {
  const p = pluginPlace(t);
  const { createServer } = await import("node:net");
  const sockets: import("node:net").Socket[] = [];
  const server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    server.close();
  });
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/team/tools.git`;
  // The stall allowed is git's own setting, shortened here; harness sets the speed that counts as one.
  const { child, result } = harness(["plugin", "marketplace", "add", url], { HOME: p.home, GIT_HTTP_LOW_SPEED_TIME: "2" }, { cwd: p.project });
  const stuck = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const ended = await result;
  clearTimeout(stuck);
  refused(ended, /git clone of .* failed: .*too slow/i);
  assert.ok(!existsSync(p.knownFile));
});

test("git is used over its plain transports only, and no ref, even one from known_marketplaces.json, reaches it as an option", async (t) => {
  const p = pluginPlace(t);
  const repo = tempDir(t);
  writeMarketplace(repo, { name: "gitmk", owner: { name: "T" }, plugins: [{ name: "helper", source: { source: "url", url: "fd::0" } }] });
  const url = gitRepo(repo);
  assert.equal((await p.run(["marketplace", "add", url])).code, 0);
  refused(await p.run(["install", "helper@gitmk"]), /git clone of fd::0 failed.*transport 'fd' not allowed/);
  const known = JSON.parse(readFileSync(p.knownFile, "utf8"));
  known.gitmk.source.ref = "--upload-pack=x";
  writeFileSync(p.knownFile, JSON.stringify(known));
  refused(await p.run(["marketplace", "update", "gitmk"]), /ref "--upload-pack=x" is not a branch or tag name/);
});
