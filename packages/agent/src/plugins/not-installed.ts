// What a run says of a plugin the settings enable that is not installed: the commands that install
// it, in the scope of the settings that enable it, with the one that adds its marketplace first
// when only the project's settings declare that. A run never fetches anything itself: a
// repository's settings must not make the harness download code the user did not ask for.
import path from "node:path";
import { readConfigJson } from "../config/files.ts";
import { isJsonObject } from "../config/json-text.ts";
import type { SettingsSource } from "../settings/types.ts";
import { comesWithRepository } from "../settings/types.ts";
import { addArgument, declaredMarketplaces } from "./declared-marketplaces.ts";

export type NotInstalledContext = { sources: readonly SettingsSource[]; projectRoot: string; pluginsDir: string };

/** The sentence for `id`, which `installedFile` does not list. */
export async function notInstalledMessage(id: string, installedFile: string, context: NotInstalledContext, known: () => Promise<ReadonlySet<string> | undefined>): Promise<string> {
  // The settings file that decides: the one of highest precedence that names the plugin.
  const enabler = context.sources.findLast((source) => isJsonObject(source.settings.enabledPlugins) && typeof source.settings.enabledPlugins[id] === "boolean");
  const scope = enabler && comesWithRepository(enabler.scope) ? ` --scope ${enabler.scope}` : "";
  const install = `harness plugin install ${id}${scope}`;
  const head = `Plugin ${id} is enabled in ${enabler?.path ?? "the settings"} but not installed (${installedFile} does not list it)`;
  const marketplace = id.includes("@") ? id.slice(id.lastIndexOf("@") + 1) : undefined;
  const added = marketplace === undefined ? undefined : await known();
  if (marketplace === undefined || added === undefined || added.has(marketplace)) return `${head}; install it with: ${install}`;
  const declared = context.sources
    .filter((source) => comesWithRepository(source.scope))
    .flatMap((source) => declaredMarketplaces(source.settings, source.path, context.projectRoot))
    .findLast((entry) => entry.name === marketplace && entry.source !== undefined);
  if (!declared) return `${head}, and its marketplace "${marketplace}" is not added; add it with: harness plugin marketplace add <directory|git URL|owner/repo>, then install it with: ${install}`;
  const add = addArgument(declared.source!);
  const where = `its marketplace "${marketplace}", which ${declared.file} declares, is not added either`;
  if (add === undefined) return `${head}, and ${where}; install it with: ${install} (which adds the marketplace first)`;
  return `${head}, and ${where}; add it and install the plugin with: harness plugin marketplace add ${add} && ${install}`;
}

/** The names of the marketplaces added (known_marketplaces.json); undefined when the file cannot be
 * read, which is then not the plugin's problem to explain. */
export async function addedMarketplaces(pluginsDir: string): Promise<ReadonlySet<string> | undefined> {
  const read = await readConfigJson(path.join(pluginsDir, "known_marketplaces.json"));
  if (read.kind === "missing") return new Set();
  if (read.kind === "error" || !isJsonObject(read.value)) return undefined;
  return new Set(Object.keys(read.value));
}
