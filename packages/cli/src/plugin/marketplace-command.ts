// `harness plugin marketplace add|list|remove|update`: the marketplaces plugins are installed from,
// recorded in ~/.claude/plugins/known_marketplaces.json as Claude Code records them.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { CliIO } from "../cli.ts";
import { isWithin } from "@harness/agent/real-paths";
import { PluginError, cacheDir, installedFile, isBelow, knownFile, marketplacesDir, readInstalled, readKnown, updateFile, withLock, type KnownMarketplace, type PluginPlace } from "./files.ts";
import { refreshClone, shallowClone } from "./git.ts";
import { readMarketplace } from "./marketplace-file.ts";

/** Where a marketplace comes from, in known_marketplaces.json's shape, with the URL a git one is
 * cloned from. */
export type Source = { record: Record<string, unknown>; url?: string; dir?: string };

/** `owner/repo` is GitHub's; a URL (https, ssh, git, file) or `user@host:path` is a git repository;
 * anything else is a directory. */
export function parseSource(input: string, cwd: string, home: string): Source {
  if (/^(https?|ssh|git|file):\/\//.test(input) || /^[\w.-]+@[\w.-]+:/.test(input)) return { record: { source: "git", url: input }, url: input };
  const path = input === "~" || input.startsWith("~/") ? join(home, input.slice(1)) : resolve(cwd, input);
  const looksLocal = /^[.~/]/.test(input) || existsSync(path);
  if (!looksLocal && /^[\w.-]+\/[\w.-]+$/.test(input)) return { record: { source: "github", repo: input }, url: `https://github.com/${input}.git` };
  if (!existsSync(path)) throw new PluginError(`${path} does not exist (a marketplace is a directory holding .claude-plugin/marketplace.json, a git URL or owner/repo)`);
  if (!statSync(path).isDirectory()) throw new PluginError(`${path} is not a directory: give the directory that holds .claude-plugin/marketplace.json`);
  return { record: { source: "directory", path }, dir: path };
}

/** The URL a recorded git or GitHub marketplace is cloned from. */
function cloneUrl(source: Record<string, unknown>): string | undefined {
  if (source.source === "github" && typeof source.repo === "string") return `https://github.com/${source.repo}.git`;
  if (source.source === "git" && typeof source.url === "string") return source.url;
  return undefined;
}

export async function addMarketplace(input: string, place: PluginPlace, io: CliIO): Promise<number> {
  await addFrom(parseSource(input, io.cwd, place.home), place, io);
  return 0;
}

/** Adds the marketplace `source` is; `declared` is the name and settings file of a project that
 * declares it, under which name it must then be (the plugins' ids say it). */
export async function addFrom(source: Source, place: PluginPlace, io: CliIO, declared?: { name: string; file: string }): Promise<void> {
  let root = source.dir;
  let clone: string | undefined;
  if (source.url) {
    mkdirSync(marketplacesDir(place), { recursive: true });
    clone = join(marketplacesDir(place), `.adding-${randomBytes(6).toString("hex")}`);
    root = clone;
  }
  try {
    const ref = typeof source.record.ref === "string" ? source.record.ref : undefined;
    if (clone) await shallowClone(source.url!, clone, { ref });
    const marketplace = readMarketplace(root!);
    if (declared && marketplace.name !== declared.name) {
      throw new PluginError(`the marketplace at ${describeSource(source.record)} is named "${marketplace.name}", not "${declared.name}" as ${declared.file} declares it; it was not added`);
    }
    const known = readKnown(place);
    const earlier = known[marketplace.name];
    if (earlier) throw new PluginError(`marketplace "${marketplace.name}" is already added (from ${describeSource(earlier.source)}); to refresh it: harness plugin marketplace update ${marketplace.name}`);
    if (clone) {
      root = join(marketplacesDir(place), marketplace.name);
      rmSync(root, { recursive: true, force: true }); // A clone left by an add that failed half-way.
      renameSync(clone, root);
      clone = undefined;
    }
    const entry: KnownMarketplace = { source: source.record, installLocation: root!, lastUpdated: new Date().toISOString() };
    try {
      await updateFile(knownFile(place), (value) => ({ ...value, [marketplace.name]: entry }));
    } catch (error) {
      if (source.url) rmSync(root!, { recursive: true, force: true });
      throw error;
    }
    const count = marketplace.plugins.length;
    const plugins = `${count} plugin${count === 1 ? "" : "s"}: ${marketplace.plugins.map((p) => p.name).join(", ") || "none yet"}`;
    if (declared) io.stdout.write(`Added marketplace "${marketplace.name}", which ${declared.file} declares (${plugins}).\n`);
    else io.stdout.write(`Added marketplace "${marketplace.name}" (${plugins}). Install one with: harness plugin install <plugin>@${marketplace.name}\n`);
  } finally {
    if (clone) rmSync(clone, { recursive: true, force: true });
  }
}

export function describeSource(source: Record<string, unknown>): string {
  if (source.source === "github") return `GitHub ${String(source.repo)}`;
  if (source.source === "git" || source.source === "url") return String(source.url);
  if (source.source === "directory" || source.source === "file") return String(source.path);
  return JSON.stringify(source);
}

export function listMarketplaces(place: PluginPlace, io: CliIO): number {
  const known = Object.entries(readKnown(place));
  if (known.length === 0) {
    io.stdout.write("No marketplaces are added. Add one with: harness plugin marketplace add <directory|git URL|owner/repo>\n");
    return 0;
  }
  for (const [name, entry] of known) io.stdout.write(`${name}\n  Source: ${describeSource(entry.source)}\n  Location: ${entry.installLocation}\n  Updated: ${entry.lastUpdated}\n`);
  return 0;
}

/** Uninstalls the plugins installed from the marketplace, as Claude Code does, then forgets it;
 * its clone goes with it, a directory of the user's own stays. While a plugin is left, the
 * marketplace is kept, so that running the command again finishes the work. */
export async function removeMarketplace(name: string, place: PluginPlace, io: CliIO, keepData = false): Promise<number> {
  const known = readKnown(place);
  if (!Object.hasOwn(known, name)) throw unknownMarketplace(name, Object.keys(known));
  const { uninstallAllFrom } = await import("./manage.ts");
  if (!(await uninstallAllFrom(name, place, io, keepData))) {
    io.stderr.write(`harness: marketplace "${name}" is kept, with the plugins above; once what stopped them is fixed, run: harness plugin marketplace remove ${name}\n`);
    return 1;
  }
  await removeCachedCopies(name, place);
  let removed: KnownMarketplace | undefined;
  await updateFile(knownFile(place), (value) => {
    if (!Object.hasOwn(value, name)) throw unknownMarketplace(name, Object.keys(value));
    const { [name]: entry, ...rest } = value;
    removed = entry as KnownMarketplace;
    return rest;
  });
  if (removed && typeof removed.installLocation === "string" && isBelow(removed.installLocation, marketplacesDir(place))) rmSync(removed.installLocation, { recursive: true, force: true });
  io.stdout.write(`Removed marketplace "${name}".\n`);
  return 0;
}

/** Removes the marketplace's directory in the plugin cache when no installation uses a copy in it
 * any more (one left by a tool that uninstalled without removing its copy goes too). */
async function removeCachedCopies(name: string, place: PluginPlace): Promise<void> {
  const dir = join(cacheDir(place), name);
  if (!isBelow(dir, cacheDir(place))) return;
  await withLock(installedFile(place), () => {
    const used = Object.values(readInstalled(place)).some((entries) => entries.some((e) => isWithin(e.installPath, dir)));
    if (!used) rmSync(dir, { recursive: true, force: true });
  });
}

export function unknownMarketplace(name: string, known: string[]): PluginError {
  return new PluginError(`unknown marketplace "${name}" (${known.length ? `known: ${known.join(", ")}` : "none is added"}); add it first with: harness plugin marketplace add <directory|git URL|owner/repo>`);
}

/** Fetches each git marketplace again (all, or the one named) and reads every one's
 * marketplace.json again; one that fails is said and the others are still updated. */
export async function updateMarketplaces(name: string | undefined, place: PluginPlace, io: CliIO): Promise<number> {
  const known = readKnown(place);
  if (name !== undefined && !Object.hasOwn(known, name)) throw unknownMarketplace(name, Object.keys(known));
  let failed = false;
  for (const [each, entry] of Object.entries(known)) {
    if (name !== undefined && each !== name) continue;
    try {
      const url = cloneUrl(entry.source);
      const ref = typeof entry.source.ref === "string" ? entry.source.ref : undefined;
      if (url && existsSync(entry.installLocation)) await refreshClone(entry.installLocation, `marketplace "${each}" (${url})`, ref);
      else if (url) await shallowClone(url, entry.installLocation, { ref });
      const marketplace = readMarketplace(entry.installLocation);
      await updateFile(knownFile(place), (value) => (Object.hasOwn(value, each) ? { ...value, [each]: { ...(value[each] as object), lastUpdated: new Date().toISOString() } } : value));
      io.stdout.write(`Updated marketplace "${each}" (${marketplace.plugins.length} plugin${marketplace.plugins.length === 1 ? "" : "s"}).\n`);
    } catch (error) {
      if (!(error instanceof PluginError)) throw error;
      io.stderr.write(`harness: marketplace "${each}" was not updated: ${error.message}\n`);
      failed = true;
    }
  }
  return failed ? 1 : 0;
}
