// Helpers of the `harness plugin` tests: a home and a project of the test's own, marketplaces to
// add (a directory, or a git repository made in the test) and the files the commands write.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { greeterPlugin, harness, tempDir } from "../test-support.ts";

type T = { after(fn: () => unknown): void };

/** A home directory and a project (a git repository) of the test's own; `run` is `harness plugin …`
 * there. */
export function pluginPlace(t: T) {
  const home = tempDir(t);
  const project = tempDir(t);
  mkdirSync(join(project, ".git"));
  const plugins = join(home, ".claude", "plugins");
  return {
    home,
    project,
    run: (args: string[], cwd = project) => harness(["plugin", ...args], { HOME: home }, { cwd }).result,
    knownFile: join(plugins, "known_marketplaces.json"),
    installedFile: join(plugins, "installed_plugins.json"),
    userSettings: join(home, ".claude", "settings.json"),
    cache: join(plugins, "cache"),
  };
}

export const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8"));

/** A marketplace directory "team-tools" listing the greeter plugin (a command, /greeter:hello, and
 * a skill, shout) at ./plugins/greeter, and `extra` entries. Answers its directory. */
export function marketplaceDir(t: T, extra: unknown[] = [], name = "team-tools"): string {
  const dir = tempDir(t);
  const plugin = greeterPlugin(dir);
  mkdirSync(join(plugin, "skills", "shout"), { recursive: true });
  writeFileSync(join(plugin, "skills", "shout", "SKILL.md"), "---\nname: shout\ndescription: Shout a word\n---\nShout $ARGUMENTS.");
  writeMarketplace(dir, { name, owner: { name: "Team" }, plugins: [{ name: "greeter", source: "./plugins/greeter", description: "Greets" }, ...extra] });
  return dir;
}

export function writeMarketplace(dir: string, value: unknown): void {
  mkdirSync(join(dir, ".claude-plugin"), { recursive: true });
  writeFileSync(join(dir, ".claude-plugin", "marketplace.json"), typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@localhost", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** `dir` made a git repository with everything in it committed; answers its file:// URL. */
export function gitRepo(dir: string): string {
  git(dir, "init", "-q");
  commitAll(dir, "first");
  return pathToFileURL(dir).href;
}

export function commitAll(dir: string, message: string): string {
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", message);
  return git(dir, "rev-parse", "HEAD");
}
