// Fetching a marketplace's plugin into a directory of its own: copied from inside the marketplace
// (a relative `source`), or cloned from a repository (`github`, `url`, `git-subdir`).
import { cpSync, existsSync, rmSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { isJsonObject } from "@harness/agent/json-text";
import { PluginError } from "./files.ts";
import { shallowClone } from "./git.ts";
import { isInside } from "./marketplace-command.ts";
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
  const ref = typeof source.ref === "string" ? source.ref : undefined;
  const sha = typeof source.sha === "string" ? source.sha : undefined;
  const text = (key: string): string => {
    if (typeof source[key] !== "string" || source[key] === "") throw new PluginError(`${marketplace.file}: the ${source.source} source of ${what} needs "${key}"`);
    return source[key] as string;
  };
  switch (source.source) {
    case "github":
      return { gitCommitSha: await shallowClone(`https://github.com/${text("repo")}.git`, dest, { ref, sha }).finally(() => rmSync(join(dest, ".git"), { recursive: true, force: true })) };
    case "url":
    case "git":
      return { gitCommitSha: await shallowClone(text("url"), dest, { ref, sha }).finally(() => rmSync(join(dest, ".git"), { recursive: true, force: true })) };
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
  if (from !== resolve(root) && !isInside(root, from)) throw new PluginError(`the source of ${source} leads out of ${within}; it was not installed`);
  if (!existsSync(from) || !statSync(from).isDirectory()) throw new PluginError(`the source of ${source} is not a directory in ${within}`);
  cpSync(from, dest, { recursive: true, filter: (file) => basename(file) !== ".git" });
}
