// `harness plugin uninstall|enable|disable|list`: the plugins installed, in installed_plugins.json,
// and whether the settings enable them.
import type { CliIO } from "../cli.ts";
import type { PluginScope } from "./args.ts";
import { PluginError, enabledState, isFor, readInstalled, setEnabled, settingsFileOf, updateInstalled, type Installation, type PluginPlace } from "./files.ts";
import { rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { pluginDataDir } from "@harness/agent/plugin-data-dir";
import { removeUnused } from "./install.ts";
import { declaredLines } from "./declared.ts";

/** The installation of `id` a command acts on: the one of `scope` for this project, or without a
 * scope the one for this project (a project's or local one before the user's). */
function installationOf(id: string, scope: PluginScope | undefined, place: PluginPlace, command: string): Installation {
  const entries = (readInstalled(place)[id] ?? []).filter((e) => isFor(e, place.projectRoot));
  const install = `harness plugin install ${id}${scope && scope !== "user" ? ` --scope ${scope}` : ""}`;
  if (entries.length === 0) throw new PluginError(`plugin "${id}" is not installed${id.includes("@") ? "" : ` (name it as name@marketplace)`}; install it with: ${install}`);
  if (scope) {
    const found = entries.find((e) => e.scope === scope);
    if (!found) throw new PluginError(`plugin "${id}" is not installed in ${scope} scope (it is in: ${entries.map((e) => e.scope).join(", ")})`);
    return found;
  }
  if (command === "uninstall" && entries.length > 1) throw new PluginError(`plugin "${id}" is installed in more than one scope (${entries.map((e) => e.scope).join(", ")}): say which with --scope`);
  return entries.find((e) => e.scope === "local") ?? entries.find((e) => e.scope === "project") ?? entries[0]!;
}

export async function uninstallPlugin(id: string, scope: PluginScope | undefined, place: PluginPlace, io: CliIO, keepData = false): Promise<number> {
  const target = installationOf(id, scope, place, "uninstall");
  const dataGone = await removeInstallation(id, target, place, keepData);
  io.stdout.write(`Uninstalled ${describeInstallation(id, target, place)}.\n`);
  if (dataGone) io.stdout.write(`Removed its data directory ${dataGone}.\n`);
  return 0;
}

/** Uninstalls every plugin installed from `marketplace`, in every scope and project, saying each in
 * one line; one that fails is said on stderr and the others still go. Answers whether all went. */
export async function uninstallAllFrom(marketplace: string, place: PluginPlace, io: CliIO, keepData = false): Promise<boolean> {
  let allGone = true;
  for (const [id, entries] of Object.entries(readInstalled(place))) {
    if (!id.endsWith(`@${marketplace}`)) continue;
    for (const entry of entries) {
      const described = describeInstallation(id, entry, place);
      try {
        const dataGone = await removeInstallation(id, entry, place, keepData);
        io.stdout.write(`Uninstalled ${described}.\n`);
        if (dataGone) io.stdout.write(`Removed its data directory ${dataGone}.\n`);
      } catch (error) {
        if (!(error instanceof PluginError)) throw error;
        io.stderr.write(`harness: ${described} was not uninstalled: ${error.message}\n`);
        allGone = false;
      }
    }
  }
  return allGone;
}

/** `id (scope)`, with the project when it is another than this one. */
function describeInstallation(id: string, entry: Installation, place: PluginPlace): string {
  const elsewhere = entry.projectPath !== undefined && entry.projectPath !== place.projectRoot;
  return `${id} (${entry.scope} scope${elsewhere ? `, in ${entry.projectPath}` : ""})`;
}

/** Takes `id` out of the settings that enable it, then its record, then its copy once nothing uses
 * it, and, when this was its last installation anywhere and `keepData` does not say otherwise, its
 * data directory, which it answers with when it was there: a failure leaves the record, so that the
 * same command can be run again. */
async function removeInstallation(id: string, entry: Installation, place: PluginPlace, keepData: boolean): Promise<string | undefined> {
  await setEnabled(entry.scope, { ...place, projectRoot: entry.projectPath ?? place.projectRoot }, id, undefined);
  let last = false;
  await updateInstalled(place, (plugins) => {
    const rest = (plugins[id] ?? []).filter((e) => !(e.scope === entry.scope && e.projectPath === entry.projectPath));
    last = rest.length === 0;
    const { [id]: _gone, ...others } = plugins;
    return rest.length ? { ...plugins, [id]: rest } : others;
  });
  await removeUnused(entry.installPath, place);
  const data = pluginDataDir(place.pluginsDir, id);
  if (!last || keepData || !existsSync(data)) return undefined;
  try {
    await rm(data, { recursive: true, force: true });
  } catch (error) {
    throw new PluginError(`${id} is uninstalled, but its data directory ${data} could not be removed: ${(error as Error).message}`);
  }
  return data;
}

export async function enablePlugin(id: string, enabled: boolean, scope: PluginScope | undefined, place: PluginPlace, io: CliIO): Promise<number> {
  const target = scope ?? installationOf(id, undefined, place, enabled ? "enable" : "disable").scope;
  if (scope) installationOf(id, undefined, place, "enable");
  await setEnabled(target, place, id, enabled);
  io.stdout.write(`${enabled ? "Enabled" : "Disabled"} ${id} in ${settingsFileOf(target, place)}.\n`);
  const state = enabledState(id, place);
  if (state.enabled !== enabled && state.scope) {
    io.stdout.write(`It stays ${state.enabled ? "enabled" : "disabled"} in this project: ${settingsFileOf(state.scope, place)} (${state.scope} scope) says so and wins; to change that: harness plugin ${enabled ? "enable" : "disable"} ${id} --scope ${state.scope}\n`);
  }
  return 0;
}

export function listPlugins(place: PluginPlace, io: CliIO): number {
  const installed = Object.entries(readInstalled(place)).sort(([a], [b]) => a.localeCompare(b));
  const rows = installed.flatMap(([id, entries]) =>
    entries.map((e) => {
      const here = isFor(e, place.projectRoot);
      const state = here ? (enabledState(id, place).enabled ? "enabled" : "disabled") : `for ${e.projectPath} only`;
      return [id, e.version ?? "unknown", e.scope, state];
    }),
  );
  if (rows.length === 0) io.stdout.write("No plugins are installed. Install one with: harness plugin install <plugin>@<marketplace>\n");
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) io.stdout.write(`${row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join("  ")}\n`);
  const declared = declaredLines(place);
  if (declared.length > 0) io.stdout.write(`This project's settings declare:\n${declared.map((line) => `  ${line}\n`).join("")}`);
  return 0;
}
