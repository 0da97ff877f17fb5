// A team's plugins: a repository's .claude/settings.json declares marketplaces
// (`extraKnownMarketplaces`) and turns plugins on (`enabledPlugins`) for everyone who works in it.
// A run never fetches them: it says how to install them, and `harness plugin install` does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic } from "@harness/test-utils";
import { harness, withFake } from "../test-support.ts";
import { gitRepo, marketplaceDir, pluginPlace, readJson } from "./test-support.ts";

type Place = ReturnType<typeof pluginPlace>;

function projectSettings(p: Place, value: unknown, file = "settings.json"): string {
  mkdirSync(join(p.project, ".claude"), { recursive: true });
  const path = join(p.project, ".claude", file);
  writeFileSync(path, JSON.stringify(value, null, 2));
  return path;
}

/** The notices of a `harness run` in the project, and its result. */
async function runNotices(t: { after(fn: () => unknown): void }, p: Place, prompt = "hi") {
  const fake = await withFake(t, startFakeAnthropic({ replies: [{ text: "Done." }] }));
  const { code, stdout, stderr } = await harness(["run", "--model", "claude-sonnet-4-6", "--output-format", "stream-json", prompt], { HOME: p.home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: fake.url }, { cwd: p.project }).result;
  assert.equal(code, 0, stderr);
  const lines = stdout.trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
  return { notices: lines.filter((e) => e.type === "notice").map((e) => String(e.message)), fake, lines };
}

test("a plugin the project enables from a marketplace it declares is not fetched by a run, which names the commands; plugin install adds the marketplace first, and the next run loads it", async (t) => {
  const p = pluginPlace(t);
  const market = marketplaceDir(t);
  const settings = projectSettings(p, {
    extraKnownMarketplaces: { "team-tools": { source: { source: "directory", path: market } } },
    enabledPlugins: { "greeter@team-tools": true },
  });

  const first = await runNotices(t, p);
  const about = first.notices.filter((n) => n.includes("greeter@team-tools"));
  assert.equal(about.length, 1, first.notices.join("\n"));
  assert.match(about[0]!, /not installed/);
  assert.ok(about[0]!.includes(`harness plugin marketplace add ${market}`), about[0]);
  assert.ok(about[0]!.includes("harness plugin install greeter@team-tools --scope project"), about[0]);
  assert.ok(!existsSync(p.knownFile) && !existsSync(p.installedFile), "a run adds and installs nothing");

  const listed = await p.run(["list"]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /greeter@team-tools.*not installed.*harness plugin install greeter@team-tools --scope project/);
  assert.match(listed.stdout, new RegExp(`team-tools.*not added.*${market.replace(/[/.]/g, "\\$&")}`));

  const installed = await p.run(["install", "greeter@team-tools", "--scope", "project"]);
  assert.equal(installed.code, 0, installed.stderr);
  assert.match(installed.stdout, new RegExp(`Added marketplace "team-tools", which ${settings.replace(/[/.]/g, "\\$&")} declares`));
  assert.match(installed.stdout, /Installed greeter@team-tools 0\.1\.0 \(project scope\)/);
  assert.deepEqual(readJson(p.knownFile)["team-tools"].source, { source: "directory", path: market });
  assert.deepEqual(readJson(settings).extraKnownMarketplaces, { "team-tools": { source: { source: "directory", path: market } } }, "the project's settings keep what they declare");

  const second = await runNotices(t, p, "/greeter:hello Ada");
  assert.deepEqual(second.notices.filter((n) => n.includes("greeter")), []);
  assert.match(JSON.stringify(second.fake.requests[0]!.body.messages), /Greet Ada warmly\./);
  const listedAfter = await p.run(["list"]);
  assert.doesNotMatch(listedAfter.stdout, /not installed|not added/);
});

test("a plugin the project enables that is installed for every user loads; one whose marketplace is added names only the install command", async (t) => {
  const p = pluginPlace(t);
  const market = marketplaceDir(t, [{ name: "other", source: "./plugins/greeter" }]);
  assert.equal((await p.run(["marketplace", "add", market])).code, 0);
  assert.equal((await p.run(["install", "greeter@team-tools"])).code, 0);
  writeFileSync(p.userSettings, JSON.stringify({}));
  projectSettings(p, { enabledPlugins: { "greeter@team-tools": true, "other@team-tools": true } });

  const { notices, fake } = await runNotices(t, p, "/greeter:hello Ada");
  assert.match(JSON.stringify(fake.requests[0]!.body.messages), /Greet Ada warmly\./);
  const about = notices.filter((n) => n.includes("@team-tools"));
  assert.equal(about.length, 1, notices.join("\n"));
  assert.ok(about[0]!.includes("harness plugin install other@team-tools --scope project"), about[0]);
  assert.doesNotMatch(about[0]!, /marketplace add/);
});

test("a git marketplace the project declares is cloned at its ref by plugin install; one whose name differs from the declared one is refused", async (t) => {
  const p = pluginPlace(t);
  const url = gitRepo(marketplaceDir(t, [], "git-tools"));
  projectSettings(p, { extraKnownMarketplaces: { "git-tools": { source: { source: "git", url, ref: "main" } }, wrong: { source: { source: "git", url } } } });

  const wrong = await p.run(["install", "greeter@wrong"]);
  assert.equal(wrong.code, 1);
  assert.match(wrong.stderr, /the marketplace .* is named "git-tools", not "wrong"/);
  assert.ok(!existsSync(join(p.home, ".claude", "plugins", "marketplaces", "git-tools")), "the clone is not kept");

  const installed = await p.run(["install", "greeter@git-tools"]);
  assert.equal(installed.code, 0, installed.stderr);
  assert.match(installed.stdout, /Added marketplace "git-tools"/);
  assert.deepEqual(readJson(p.knownFile)["git-tools"].source, { source: "git", url, ref: "main" });
});

test("extraKnownMarketplaces that harness cannot use are named with the file and key, in a run and by plugin install", async (t) => {
  const p = pluginPlace(t);
  const settings = projectSettings(p, {
    extraKnownMarketplaces: {
      hosted: { source: { source: "url", url: "https://example.com/marketplace.json" } },
      broken: { source: { source: "github" } },
      flat: "owner/repo",
    },
    enabledPlugins: { "kit@hosted": true },
  });

  const { notices } = await runNotices(t, p);
  const text = notices.join("\n");
  assert.ok(text.includes(settings), text);
  assert.match(text, /\(extraKnownMarketplaces\.hosted\): its source is "url", which harness cannot add: harness plugin marketplace add takes github, git and directory sources/);
  assert.match(text, /\(extraKnownMarketplaces\.broken\): "source\.repo" must be a GitHub repository as "owner\/repo"/);
  assert.match(text, /\(extraKnownMarketplaces\.flat\): must be an object/);

  const install = await p.run(["install", "kit@hosted"]);
  assert.equal(install.code, 1);
  assert.ok(install.stderr.includes(settings), install.stderr);
  assert.match(install.stderr, /\(extraKnownMarketplaces\.hosted\): its source is "url"/);
  assert.ok(!existsSync(p.knownFile));
});
