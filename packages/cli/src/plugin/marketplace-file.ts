// A marketplace's `.claude-plugin/marketplace.json`, as far as installing needs it: its `name`
// (what a plugin's id says after "@"), and its plugins, each with a `name` and a `source`.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isJsonObject, parseJsonText } from "@harness/agent/json-text";
import { marketplaceNameProblem } from "@harness/agent/declared-marketplaces";
import { PluginError } from "./files.ts";

export type MarketplaceEntry = { name: string; source: unknown; version?: string };
export type Marketplace = { name: string; file: string; root: string; plugins: MarketplaceEntry[]; pluginRoot?: string };

/** A name that can be a directory of its own and a part of `name@marketplace`. */
export const nameProblem = marketplaceNameProblem;

/** The marketplace whose root (the directory holding `.claude-plugin/`) is `root`. */
export function readMarketplace(root: string): Marketplace {
  const file = join(root, ".claude-plugin", "marketplace.json");
  if (!existsSync(file)) throw new PluginError(`${root} is no marketplace: it has no .claude-plugin/marketplace.json`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new PluginError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const read = parseJsonText(text);
  if (read.kind !== "ok" || read.empty) throw new PluginError(`${file} is not valid JSON${read.kind === "error" ? ` (${read.message.replace(/^invalid JSON: /, "")})` : " (it is empty)"}`);
  const value = read.value;
  if (!isJsonObject(value)) throw new PluginError(`${file} must hold a JSON object`);
  const problem = nameProblem(value.name);
  if (problem) throw new PluginError(`${file}: "name" ${problem}`);
  if (!Array.isArray(value.plugins)) throw new PluginError(`${file}: "plugins" must be a list of plugins`);
  const plugins = value.plugins.map((entry, index): MarketplaceEntry => {
    if (!isJsonObject(entry)) throw new PluginError(`${file}: plugins[${index}] must be an object`);
    const entryProblem = nameProblem(entry.name);
    if (entryProblem) throw new PluginError(`${file}: plugins[${index}].name ${entryProblem}`);
    if (entry.source === undefined) throw new PluginError(`${file}: plugin "${String(entry.name)}" has no "source"`);
    return { name: entry.name as string, source: entry.source, ...(typeof entry.version === "string" && { version: entry.version }) };
  });
  const pluginRoot = isJsonObject(value.metadata) && typeof value.metadata.pluginRoot === "string" ? value.metadata.pluginRoot : undefined;
  return { name: value.name as string, file, root, plugins, ...(pluginRoot !== undefined && { pluginRoot }) };
}
