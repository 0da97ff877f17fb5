// The marketplaces and plugins this project's settings (.claude/settings.json and
// settings.local.json) declare for everyone who works in it: `extraKnownMarketplaces` and
// `enabledPlugins`. `harness plugin install` adds a declared marketplace when asked to install from
// it; `harness plugin list` shows what is declared but not there yet.
import { existsSync, statSync } from "node:fs";
import { isJsonObject } from "@harness/agent/json-text";
import { declaredMarketplaces, type DeclaredMarketplace, type DeclaredSource } from "@harness/agent/declared-marketplaces";
import type { CliIO } from "../cli.ts";
import { PluginError, isFor, readFileObject, readInstalled, readKnown, settingsFileOf, type PluginPlace } from "./files.ts";
import { addFrom, type Source } from "./marketplace-command.ts";

const PROJECT_SCOPES = ["project", "local"] as const;

/** The marketplaces the project's settings declare, the local settings' after the shared ones. */
export function declaredHere(place: PluginPlace): DeclaredMarketplace[] {
  return PROJECT_SCOPES.flatMap((scope) => {
    const { file, value } = readFileObject(settingsFileOf(scope, place));
    if (value.extraKnownMarketplaces !== undefined && !isJsonObject(value.extraKnownMarketplaces)) {
      throw new PluginError(`${file}: "extraKnownMarketplaces" must be an object such as {"name": {"source": {"source": "github", "repo": "owner/repo"}}}`);
    }
    return declaredMarketplaces(value, file, place.projectRoot);
  });
}

/** Adds marketplace `name` when the project declares it (saying so); false when it does not. A
 * declaration harness cannot use is refused, naming its file and key. */
export async function addDeclared(name: string, place: PluginPlace, io: CliIO): Promise<boolean> {
  const declared = declaredHere(place).findLast((entry) => entry.name === name);
  if (!declared) return false;
  if (declared.problem !== undefined) throw new PluginError(`${declared.file} (extraKnownMarketplaces.${name}): ${declared.problem}`);
  await addFrom(sourceOf(declared.source!), place, io, { name, file: declared.file });
  return true;
}

function sourceOf(source: DeclaredSource): Source {
  if (source.source === "github") return { record: source, url: `https://github.com/${source.repo}.git` };
  if (source.source === "git") return { record: source, url: source.url };
  if (!existsSync(source.path) || !statSync(source.path).isDirectory()) throw new PluginError(`${source.path} is not a directory (the marketplace the project declares is to be there)`);
  return { record: source, dir: source.path };
}

/** Lines for `harness plugin list`: the plugins the project's settings enable that are not
 * installed for it, and the marketplaces they declare that are not added. */
export function declaredLines(place: PluginPlace): string[] {
  const installed = readInstalled(place);
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const scope of [...PROJECT_SCOPES].reverse()) {
    const { file, value } = readFileObject(settingsFileOf(scope, place));
    if (!isJsonObject(value.enabledPlugins)) continue;
    for (const [id, on] of Object.entries(value.enabledPlugins)) {
      if (seen.has(id)) continue;
      seen.add(id);
      if (on !== true || (installed[id] ?? []).some((e) => isFor(e, place.projectRoot))) continue;
      lines.push(`${id}  not installed (enabled in ${file}); install it with: harness plugin install ${id} --scope ${scope}`);
    }
  }
  const known = readKnown(place);
  const shown = new Set<string>();
  for (const entry of declaredHere(place).reverse()) {
    if (Object.hasOwn(known, entry.name) || shown.has(entry.name)) continue;
    shown.add(entry.name);
    if (entry.problem !== undefined) lines.push(`Marketplace "${entry.name}" (declared in ${entry.file}) cannot be added: ${entry.problem}`);
    else lines.push(`Marketplace "${entry.name}" (declared in ${entry.file}) is not added: ${describe(entry.source!)}; harness plugin install <plugin>@${entry.name} adds it`);
  }
  return lines;
}

function describe(source: DeclaredSource): string {
  const ref = "ref" in source && source.ref !== undefined ? ` at ${source.ref}` : "";
  if (source.source === "github") return `GitHub ${source.repo}${ref}`;
  if (source.source === "git") return `${source.url}${ref}`;
  return source.path;
}
