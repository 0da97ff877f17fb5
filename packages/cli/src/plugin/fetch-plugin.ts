// Fetching a marketplace's plugin into a directory of its own: copied from inside the marketplace
// (a relative `source`), or cloned from a repository (`github`, `url`, `git-subdir`).
import { cpSync, existsSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { isJsonObject } from "@harness/agent/json-text";
import { isWithin } from "@harness/agent/real-paths";
import { PluginError } from "./files.ts";
import { shallowClone } from "./git.ts";
import type { Marketplace, MarketplaceEntry } from "./marketplace-file.ts";

/** `dest` (which must not exist) filled with the plugin, and the commit it was cloned at. */
export async function fetchPlugin(entry: MarketplaceEntry, marketplace: Marketplace, dest: string): Promise<{ gitCommitSha?: string }> {
  const { source } = entry;
  const what = `plugin "${entry.name}" of marketplace "${marketplace.name}"`;
  if (typeof source === "string") {
    copyInside(marketplace.root, relativeSource(source, marketplace), dest, `${what}, "${source}",`, "the marketplace's directory");
    return {};
  }
  if (!isJsonObject(source) || typeof source.source !== "string") throw new PluginError(`${marketplace.file}: the source of ${what} must be a path ("./plugins/x") or an object with a "source"`);
  const ref = checked(source.ref, "ref", /^(?!-)[^\s\0]+$/, "a branch or tag name", `${marketplace.file}: ${what}`);
  const sha = checked(source.sha, "sha", /^[0-9a-f]{7,64}$/i, "a commit (7 to 64 hex digits)", `${marketplace.file}: ${what}`);
  const text = (key: string): string => {
    if (typeof source[key] !== "string" || source[key] === "") throw new PluginError(`${marketplace.file}: the ${source.source} source of ${what} needs "${key}"`);
    return source[key] as string;
  };
  switch (source.source) {
    case "github":
    case "url":
    case "git": {
      const url = source.source === "github" ? `https://github.com/${text("repo")}.git` : text("url");
      const gitCommitSha = await shallowClone(url, dest, { ref, sha }).finally(() => rmSync(join(dest, ".git"), { recursive: true, force: true }));
      linksLeadingOut(dest, `${what}, ${url},`);
      return { gitCommitSha };
    }
    case "git-subdir": {
      const clone = `${dest}.clone`;
      try {
        const gitCommitSha = await shallowClone(text("url"), clone, { ref, sha });
        copyInside(clone, text("path"), dest, `${what}, "${text("path")}" of ${text("url")},`, "its repository");
        return { gitCommitSha };
      } finally {
        rmSync(clone, { recursive: true, force: true });
      }
    }
    default:
      throw new PluginError(`${what} comes from a "${source.source}" source, which is not supported (a path in the marketplace, github, url and git-subdir are)`);
  }
}

/** `value` (a source's `key`) when it is absent or reads as `pattern` says; git is handed it as an
 * argument, where a leading "-" would be read as an option (`--upload-pack=<command>`). */
function checked(value: unknown, key: string, pattern: RegExp, what: string, of: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !pattern.test(value)) throw new PluginError(`${of}: its "${key}" ${JSON.stringify(value)} is not ${what}`);
  return value;
}

/** A string source as a path from the marketplace's root: `./x` as it is, a bare name under the
 * marketplace's `metadata.pluginRoot` when it has one. */
function relativeSource(source: string, marketplace: Marketplace): string {
  if (source.startsWith("./") || source === "." || !marketplace.pluginRoot) return source;
  return join(marketplace.pluginRoot, source);
}

/** Copies the directory `path` of `root` (`within`, to the user) to `dest`, refusing a path that
 * leads out of `root`: an entry of a marketplace may name its own files only. */
function copyInside(root: string, path: string, dest: string, source: string, within: string): void {
  const from = resolve(root, path);
  if (!isWithin(from, resolve(root))) throw new PluginError(`the source of ${source} leads out of ${within}; it was not installed`);
  if (!existsSync(from) || !statSync(from).isDirectory()) throw new PluginError(`the source of ${source} is not a directory in ${within}`);
  // By their real paths: a link may lead anywhere, and the copy would hold what it leads to.
  const real = realpathSync(from);
  const realRoot = realpathSync(root);
  if (!isWithin(real, realRoot)) throw new PluginError(`the source of ${source} is a link that leads out of ${within}; it was not installed`);
  linksLeadingOut(real, source);
  cpSync(real, dest, { recursive: true, verbatimSymlinks: true, filter: (file) => basename(file) !== ".git" });
}

/** Refuses a plugin directory holding a link to something outside it (`commands/x.md` → a key file
 * of the user's): the installed copy would read it as the plugin's own. */
function linksLeadingOut(dir: string, source: string, at = dir): void {
  for (const entry of readdirSync(at, { withFileTypes: true })) {
    if (entry.name === ".git") continue;
    const file = join(at, entry.name);
    if (entry.isDirectory()) linksLeadingOut(dir, source, file);
    else if (entry.isSymbolicLink()) {
      let target: string | undefined;
      try {
        target = realpathSync(file);
      } catch {
        // A dangling link copies as a dangling link.
      }
      if (target !== undefined && !isWithin(target, dir)) {
        throw new PluginError(`the source of ${source} holds ${relative(dir, file)}, a link that leads out of the plugin's directory; it was not installed`);
      }
    }
  }
}
