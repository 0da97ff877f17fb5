// Which plugins a run loads: those installed (by `harness plugin install` or Claude Code, each listed
// with where it is in `~/.claude/plugins/installed_plugins.json`) that the settings enable
// (`enabledPlugins`: `{"name@marketplace": true}`, the higher scope winning per plugin, as settings
// merge), and those given for the run (`--plugin-dir`), which win over an installed plugin of the
// same name. Installing is not done here: this reads what was installed.
import path from "node:path";
import { readConfigJson } from "../config/files.ts";
import type { SettingsSource } from "../settings/types.ts";
import { loadPlugin } from "./load-plugin.ts";
import { addedMarketplaces, notInstalledMessage } from "./not-installed.ts";
import type { Plugin, PluginDiagnostic, PluginDiscovery } from "./types.ts";
import { isJsonObject } from "../config/json-text.ts";
import { userConfigDir } from "../config/user-config-dir.ts";

export type DiscoverPluginsOptions = {
  home: string;
  projectRoot: string;
  /** The merged settings' `enabledPlugins`. */
  enabledPlugins?: unknown;
  /** The settings files, for which plugins the managed ones enable. */
  sources?: readonly SettingsSource[];
  /** Plugin directories given for the run, relative to `cwd`. */
  pluginDirs?: readonly string[];
  cwd?: string;
};

type Installation = { installPath: string; projectPath?: string };

/** Never rejects: a plugin that cannot load is named in a diagnostic and left out, and the others
 * load. Plugins come back in a stable order: installed ones by id, then the run's in order. */
export async function discoverPlugins(options: DiscoverPluginsOptions): Promise<PluginDiscovery> {
  const diagnostics: PluginDiagnostic[] = [];
  const enabled = enabledIds(options.enabledPlugins, diagnostics);
  const managed = new Set(
    (options.sources ?? []).filter((source) => source.scope === "managed").flatMap((source) => {
      const value = source.settings.enabledPlugins;
      return isJsonObject(value) ? Object.keys(value).filter((id) => value[id] === true) : [];
    }),
  );
  const pluginsDir = path.join(userConfigDir(options.home), "plugins");
  const installedFile = path.join(pluginsDir, "installed_plugins.json");
  let known: ReturnType<typeof addedMarketplaces> | undefined;
  const context = { sources: options.sources ?? [], projectRoot: options.projectRoot, pluginsDir };
  const installed = enabled.length > 0 ? await readInstalled(installedFile, diagnostics) : new Map<string, Installation[]>();

  const loads = enabled.map(async (id) => {
    const entries = installed?.get(id) ?? [];
    const at = chooseInstallation(entries, options.projectRoot);
    if (!at) {
      // An installed_plugins.json that cannot be read is named once, not as if it left out each plugin.
      if (!installed) return undefined;
      if (entries.length > 0) {
        const where = entries.map((entry) => entry.projectPath).join(", ");
        diagnostics.push({ file: installedFile, message: `Plugin ${id} is installed only for other projects (${where}), not for this one; install it here with: harness plugin install ${id} --scope project (or for every project, without --scope)` });
        return undefined;
      }
      diagnostics.push({ file: installedFile, message: await notInstalledMessage(id, installedFile, context, () => (known ??= addedMarketplaces(pluginsDir))) });
      return undefined;
    }
    const name = id.includes("@") ? id.slice(0, id.lastIndexOf("@")) : id;
    return loadPlugin(at.installPath, { fallbackName: name, id, source: "installed", home: options.home, managed: managed.has(id) });
  });
  const given = (options.pluginDirs ?? []).map((dir) => {
    const root = path.resolve(options.cwd ?? process.cwd(), dir);
    return loadPlugin(root, { fallbackName: path.basename(root), source: "plugin-dir", home: options.home });
  });

  const byName = new Map<string, Plugin>();
  for (const load of await Promise.all([...loads, ...given])) {
    if (!load) continue;
    if (!load.ok) {
      diagnostics.push(load.diagnostic);
      continue;
    }
    diagnostics.push(...load.diagnostics);
    const earlier = byName.get(load.plugin.name);
    if (earlier && earlier.source === "plugin-dir" && load.plugin.source === "plugin-dir") {
      diagnostics.push({ file: load.plugin.root, message: `Plugin ${load.plugin.name} is not loaded: ${earlier.root} is a plugin of the same name, given first.` });
      continue;
    }
    if (earlier && earlier.source === "installed" && load.plugin.source === "installed") {
      diagnostics.push({ file: load.plugin.root, message: `Plugin ${load.plugin.id} is not loaded: ${earlier.id} is enabled under the same name.` });
      continue;
    }
    // A plugin given for the run replaces an installed one of its name, as --plugin-dir does in
    // Claude Code (to try a new version of a plugin one has installed).
    byName.set(load.plugin.name, load.plugin);
  }
  return { plugins: [...byName.values()], diagnostics };
}

/** The ids `enabledPlugins` turns on, sorted. Claude Code's legacy forms (a list) enable nothing. */
function enabledIds(value: unknown, diagnostics: PluginDiagnostic[]): string[] {
  if (value === undefined) return [];
  if (!isJsonObject(value)) {
    diagnostics.push({ file: "settings", key: "enabledPlugins", message: 'must be an object such as {"name@marketplace": true}; no installed plugin is enabled' });
    return [];
  }
  return Object.keys(value)
    .filter((id) => value[id] === true)
    .sort();
}

/** installed_plugins.json: `{ "version": 2, "plugins": { id: [{ scope, installPath, projectPath? }] } }`,
 * or version 1's single entry per id. Undefined when the file is there but cannot be read. */
async function readInstalled(file: string, diagnostics: PluginDiagnostic[]): Promise<Map<string, Installation[]> | undefined> {
  const out = new Map<string, Installation[]>();
  const read = await readConfigJson(file);
  if (read.kind === "missing") return out;
  if (read.kind === "error" || !isJsonObject(read.value) || !isJsonObject(read.value.plugins)) {
    diagnostics.push({ file, message: `${read.kind === "error" ? read.message : 'must hold a "plugins" object'}; no installed plugin is loaded` });
    return undefined;
  }
  for (const [id, entries] of Object.entries(read.value.plugins)) {
    const list = (Array.isArray(entries) ? entries : [entries]).filter(isJsonObject).flatMap((entry): Installation[] => {
      if (typeof entry.installPath !== "string" || entry.installPath === "") return [];
      return [{ installPath: entry.installPath, ...(typeof entry.projectPath === "string" && { projectPath: entry.projectPath }) }];
    });
    out.set(id, list);
  }
  return out;
}

/** The installation this project uses: one made for it (a project- or local-scope install), else
 * one made for every project (user scope). None when it was installed for other projects only: a
 * repository's settings must not turn on what another project's owner chose to install. */
function chooseInstallation(entries: readonly Installation[], projectRoot: string): Installation | undefined {
  const root = path.resolve(projectRoot);
  return entries.find((entry) => entry.projectPath !== undefined && path.resolve(entry.projectPath) === root) ?? entries.find((entry) => entry.projectPath === undefined);
}

