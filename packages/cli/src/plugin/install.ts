// `harness plugin install <plugin>@<marketplace>`: the plugin fetched into
// ~/.claude/plugins/cache/<marketplace>/<plugin>/<version>/, recorded in installed_plugins.json and
// enabled in the scope's settings, as Claude Code installs one, so that either tool loads it.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { isJsonObject } from "@harness/agent/json-text";
import type { CliIO } from "../cli.ts";
import type { PluginScope } from "./args.ts";
import { addDeclared } from "./declared.ts";
import { fetchPlugin } from "./fetch-plugin.ts";
import { PluginError, cacheDir, isBelow, enabledIn, installedFile, readInstalled, readKnown, setEnabled, settingsFileOf, updateInstalled, withLock, type Installation, type PluginPlace } from "./files.ts";
import { unknownMarketplace } from "./marketplace-command.ts";
import { readMarketplace, type Marketplace, type MarketplaceEntry } from "./marketplace-file.ts";

export async function installPlugin(given: string, scope: PluginScope, place: PluginPlace, io: CliIO): Promise<number> {
  const { marketplace, entry } = await findPlugin(given, place, io);
  const id = `${entry.name}@${marketplace.name}`;
  // What would refuse the new record refuses the install before anything is fetched.
  readInstalled(place);
  enabledIn(scope, place);

  const parent = join(cacheDir(place), marketplace.name, entry.name);
  mkdirSync(parent, { recursive: true });
  const staging = join(parent, `.installing-${randomBytes(6).toString("hex")}`);
  let fetched: { gitCommitSha?: string };
  let version: string;
  try {
    fetched = await fetchPlugin(entry, marketplace, staging);
    version = manifestVersion(staging) ?? cleanVersion(entry.version) ?? fetched.gitCommitSha?.slice(0, 12) ?? "unknown";
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    removeIfEmpty(parent);
    throw error;
  }

  const installPath = join(parent, pathSafe(version));
  const now = new Date().toISOString();
  const projectPath = scope === "user" ? undefined : place.projectRoot;
  let replaced: Installation | undefined;
  // The copy is put in place under the record's lock, which an uninstall removing a copy nothing
  // records holds too: the same copy, recorded meanwhile for another scope, is not removed.
  await updateInstalled(place, (plugins) => {
    replaceDir(staging, installPath);
    const entries = plugins[id] ?? [];
    replaced = entries.find((e) => e.scope === scope && e.projectPath === projectPath);
    const installation: Installation = {
      scope,
      installPath,
      version,
      installedAt: replaced?.installedAt ?? now,
      lastUpdated: now,
      ...(fetched.gitCommitSha && { gitCommitSha: fetched.gitCommitSha }),
      ...(projectPath !== undefined && { projectPath }),
    };
    return { ...plugins, [id]: replaced ? entries.map((e) => (e === replaced ? installation : e)) : [...entries, installation] };
  }).finally(() => rmSync(staging, { recursive: true, force: true }));
  await setEnabled(scope, place, id, true);
  if (replaced && replaced.installPath !== installPath) await removeUnused(replaced.installPath, place);
  io.stdout.write(`Installed ${id} ${version} (${scope} scope), enabled in ${settingsFileOf(scope, place)}.\n`);
  return 0;
}

/** The marketplace and entry `given` names: `name@marketplace`, or a name only one marketplace has.
 * A marketplace not added that the project declares is added first. */
async function findPlugin(given: string, place: PluginPlace, io: CliIO): Promise<{ marketplace: Marketplace; entry: MarketplaceEntry }> {
  let known = readKnown(place);
  const at = given.lastIndexOf("@");
  if (at <= 0) {
    const found = Object.values(known).flatMap((k) => {
      const marketplace = readMarketplace(k.installLocation);
      const entry = marketplace.plugins.find((p) => p.name === given);
      return entry ? [{ marketplace, entry }] : [];
    });
    if (found.length === 1) return found[0]!;
    if (found.length === 0) throw new PluginError(`no marketplace added has a plugin "${given}"${Object.keys(known).length ? "" : " (none is added: harness plugin marketplace add <source>)"}`);
    throw new PluginError(`plugin "${given}" is in more than one marketplace (${found.map((f) => f.marketplace.name).join(", ")}): say which, as ${given}@${found[0]!.marketplace.name}`);
  }
  const name = given.slice(0, at);
  const marketplaceName = given.slice(at + 1);
  if (!Object.hasOwn(known, marketplaceName) && (await addDeclared(marketplaceName, place, io))) known = readKnown(place);
  const record = Object.hasOwn(known, marketplaceName) ? known[marketplaceName] : undefined;
  if (!record) throw unknownMarketplace(marketplaceName, Object.keys(known));
  const marketplace = readMarketplace(record.installLocation);
  const entry = marketplace.plugins.find((p) => p.name === name);
  if (!entry) throw new PluginError(`no plugin "${name}" in marketplace "${marketplaceName}" (it has: ${marketplace.plugins.map((p) => p.name).join(", ") || "none"}); if it is new there: harness plugin marketplace update ${marketplaceName}`);
  return { marketplace, entry };
}

/** The `version` of the plugin's plugin.json, when it has one that is a string. */
function manifestVersion(root: string): string | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(join(root, ".claude-plugin", "plugin.json"), "utf8"));
    return isJsonObject(value) ? cleanVersion(value.version) : undefined;
  } catch {
    return undefined; // No manifest, or one the loader will name when a run loads the plugin.
  }
}

/** A plugin's version is kept to this many characters. */
const VERSION_CHARS = 256;
/** Versions longer than this are shortened in directory names (file systems take 255 bytes). */
const VERSION_NAME_CHARS = 100;

/** A version as given, to be printed and recorded: no control characters (a terminal would act on
 * them) and not a page of text; undefined when nothing is left. */
function cleanVersion(given: unknown): string | undefined {
  if (typeof given !== "string") return undefined;
  const version = given.replace(/\p{Cc}/gu, "").trim().slice(0, VERSION_CHARS);
  return version === "" ? undefined : version;
}

/** A version as a directory's name. */
function pathSafe(version: string): string {
  const safe = version.replace(/[^\w.+-]/g, "-");
  if (safe === "." || safe === "..") return "unknown";
  if (safe.length <= VERSION_NAME_CHARS) return safe;
  // Shortened, with a digest of the whole version so that two long versions stay apart.
  return `${safe.slice(0, VERSION_NAME_CHARS - 17)}-${createHash("sha256").update(version).digest("hex").slice(0, 16)}`;
}

/** Puts `from` where `to` is, the old `to` (a reinstall of the same version) removed only once the
 * new one is in place. */
function replaceDir(from: string, to: string): void {
  if (!existsSync(to)) return renameSync(from, to);
  const old = `${to}.old-${randomBytes(6).toString("hex")}`;
  renameSync(to, old);
  renameSync(from, to);
  rmSync(old, { recursive: true, force: true });
}

/** Removes `dir` when it is empty: not when another install has just begun to fetch into it. */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // Not empty, or gone already.
  }
}

/** Removes the copy at `installPath` when it is in the cache and no installation uses it any more,
 * deciding under the record's lock (see installPlugin). */
export async function removeUnused(installPath: string, place: PluginPlace): Promise<void> {
  if (!isBelow(installPath, cacheDir(place))) return;
  await withLock(installedFile(place), () => {
    const used = Object.values(readInstalled(place)).some((entries) => entries.some((e) => e.installPath === installPath));
    if (!used) rmSync(installPath, { recursive: true, force: true });
  });
}
