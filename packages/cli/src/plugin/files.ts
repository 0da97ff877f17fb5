// The files `harness plugin` reads and writes, Claude Code's own: ~/.claude/plugins/
// known_marketplaces.json (the marketplaces added), installed_plugins.json (what is installed where)
// and each scope's settings (`enabledPlugins`). Each is written whole and atomically, every other
// key kept, under the lock `harness mcp` takes (mcp/files.ts).
import { existsSync } from "node:fs";
import { join, relative } from "node:path";
import { isJsonObject } from "@harness/agent/json-text";
import { isWithin } from "@harness/agent/real-paths";
import { McpFileError, mcpPlace, readConfig, updateConfig, withFileLock, type ConfigFile } from "../mcp/files.ts";
import type { PluginScope } from "./args.ts";

/** Whether `path` is below `dir`, not `dir` itself: what `harness plugin` made there and may remove. */
export const isBelow = (path: string, dir: string) => relative(dir, path) !== "" && isWithin(path, dir);

/** A failure the user can act on: printed as one line, exit status 1. */
export class PluginError extends Error {}

export type PluginPlace = { home: string; projectRoot: string; userDir: string; pluginsDir: string };

export async function pluginPlace(cwd: string, env: NodeJS.ProcessEnv): Promise<PluginPlace> {
  const { home, projectRoot, userDir } = await mcpPlace(cwd, env);
  return { home, projectRoot, userDir, pluginsDir: join(userDir, "plugins") };
}

export const knownFile = (place: PluginPlace) => join(place.pluginsDir, "known_marketplaces.json");
export const installedFile = (place: PluginPlace) => join(place.pluginsDir, "installed_plugins.json");
/** Where marketplaces cloned with git are kept, each in a directory of its name. */
export const marketplacesDir = (place: PluginPlace) => join(place.pluginsDir, "marketplaces");
/** Where installed plugins are copied: `<marketplace>/<plugin>/<version>`. */
export const cacheDir = (place: PluginPlace) => join(place.pluginsDir, "cache");

export function settingsFileOf(scope: PluginScope, place: PluginPlace): string {
  if (scope === "user") return join(place.userDir, "settings.json");
  return join(place.projectRoot, ".claude", scope === "project" ? "settings.json" : "settings.local.json");
}

/** `read`, with a file that cannot be understood said as a PluginError. */
export function readFileObject(file: string): ConfigFile {
  try {
    return readConfig(file);
  } catch (error) {
    throw asPluginError(error);
  }
}

/** Changes `file` (made with its directory when missing, by updateConfig) by `change`, which may
 * throw to leave it as it is. */
export async function updateFile(file: string, change: (value: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
  try {
    await updateConfig(file, (config) => change(config.value));
  } catch (error) {
    throw asPluginError(error);
  }
}

/** Runs `body` holding `file`'s lock, the one its changes are made under. */
export async function withLock<T>(file: string, body: () => T): Promise<T> {
  try {
    return await withFileLock(file, body);
  } catch (error) {
    throw asPluginError(error);
  }
}

function asPluginError(error: unknown): unknown {
  if (error instanceof McpFileError) return new PluginError(error.message);
  if (error instanceof PluginError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return code ? new PluginError((error as Error).message) : error;
}

/** A marketplace as known_marketplaces.json records it under its name. */
export type KnownMarketplace = { source: Record<string, unknown>; installLocation: string; lastUpdated: string };

export function readKnown(place: PluginPlace): Record<string, KnownMarketplace> {
  const { file, value } = readFileObject(knownFile(place));
  // Without a prototype: a name read from the file ("__proto__") is a key like any other.
  const out: Record<string, KnownMarketplace> = Object.create(null);
  for (const [name, entry] of Object.entries(value)) {
    if (!isJsonObject(entry) || typeof entry.installLocation !== "string" || !isJsonObject(entry.source)) {
      throw new PluginError(`${file}: the entry of "${name}" is not a marketplace (it needs "source" and "installLocation"); it was left as it is`);
    }
    out[name] = entry as KnownMarketplace;
  }
  return out;
}

/** One installation of a plugin, as installed_plugins.json (version 2) lists it under its id. */
export type Installation = {
  scope: PluginScope;
  installPath: string;
  version: string;
  installedAt: string;
  lastUpdated: string;
  gitCommitSha?: string;
  /** The project a project- or local-scope installation is for. */
  projectPath?: string;
};

/** The plugins of installed_plugins.json by id; version 1's single entry per id is read as a list
 * of one (and written back as version 2). */
export function installationsIn(value: Record<string, unknown>, file: string): Record<string, Installation[]> {
  if (value.plugins === undefined) return {};
  if (!isJsonObject(value.plugins)) throw new PluginError(`${file}: "plugins" is not an object; it was left as it is`);
  const out: Record<string, Installation[]> = {};
  for (const [id, entries] of Object.entries(value.plugins)) {
    const list = Array.isArray(entries) ? entries : [entries];
    if (!list.every((entry) => isJsonObject(entry) && typeof entry.installPath === "string")) {
      throw new PluginError(`${file}: the entry of "${id}" is not a list of installations (each with an "installPath"); it was left as it is`);
    }
    out[id] = list.map((entry) => ({ scope: "user", ...(entry as Record<string, unknown>) }) as Installation);
  }
  return out;
}

export function readInstalled(place: PluginPlace): Record<string, Installation[]> {
  const { file, value } = readFileObject(installedFile(place));
  return installationsIn(value, file);
}

/** Changes the installations recorded, the file's other keys kept. */
export async function updateInstalled(place: PluginPlace, change: (plugins: Record<string, Installation[]>) => Record<string, Installation[]>): Promise<void> {
  const file = installedFile(place);
  await updateFile(file, (value) => ({ ...value, version: 2, plugins: change(installationsIn(value, file)) }));
}

/** Whether `entry` is for the project at `projectRoot`: a user-scope one is for every project. */
export const isFor = (entry: Installation, projectRoot: string) => entry.projectPath === undefined || entry.projectPath === projectRoot;

/** The `enabledPlugins` of a scope's settings (empty when the file or the key is missing). */
export function enabledIn(scope: PluginScope, place: PluginPlace): Record<string, unknown> {
  const { file, value } = readFileObject(settingsFileOf(scope, place));
  return enabledPluginsOf(value, file);
}

/** Sets (or, with `undefined`, removes) `enabledPlugins[id]` in the scope's settings; a removal
 * from settings that do not exist (a project deleted since) makes none. */
export async function setEnabled(scope: PluginScope, place: PluginPlace, id: string, enabled: boolean | undefined): Promise<void> {
  const file = settingsFileOf(scope, place);
  if (enabled === undefined && !existsSync(file)) return;
  await updateFile(file, (value) => {
    const enabledPlugins = enabledPluginsOf(value, file);
    const { [id]: _old, ...rest } = enabledPlugins;
    return { ...value, enabledPlugins: enabled === undefined ? rest : { ...enabledPlugins, [id]: enabled } };
  });
}

/** The settings' `enabledPlugins` (empty when missing); one that is not an object is refused. */
function enabledPluginsOf(settings: Record<string, unknown>, file: string): Record<string, unknown> {
  if (settings.enabledPlugins === undefined) return {};
  if (!isJsonObject(settings.enabledPlugins)) throw new PluginError(`${file}: "enabledPlugins" is not an object; it was left as it is`);
  return settings.enabledPlugins;
}

/** Whether the settings enable `id`, the most specific scope that says so winning (local, project,
 * user), with the scope that decides. */
export function enabledState(id: string, place: PluginPlace): { enabled: boolean; scope?: PluginScope } {
  for (const scope of ["local", "project", "user"] as const) {
    const value = enabledIn(scope, place)[id];
    if (typeof value === "boolean") return { enabled: value, scope };
  }
  return { enabled: false };
}
