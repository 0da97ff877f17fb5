// Marketplaces a repository declares for everyone who works in it: `extraKnownMarketplaces` in its
// settings (Claude Code's key), `{"name": {"source": {"source": "github", "repo": "owner/repo"}}}`.
// Declaring one fetches nothing: a run only names the commands that add it, and
// `harness plugin install name@marketplace` adds it when asked to install from it. Only the sources
// `harness plugin marketplace add` takes are accepted; the others are named as such.
import path from "node:path";
import { isJsonObject } from "../config/json-text.ts";

/** Where a declared marketplace comes from, in known_marketplaces.json's shape. */
export type DeclaredSource = { source: "github"; repo: string; ref?: string } | { source: "git"; url: string; ref?: string } | { source: "directory"; path: string };

export const ADDABLE_SOURCES = ["github", "git", "directory"] as const;

const EXAMPLE = '{"source": {"source": "github", "repo": "owner/repo"}}';

/** A name that can be a directory of its own and a part of `name@marketplace`. */
export function marketplaceNameProblem(name: unknown): string | undefined {
  if (typeof name !== "string" || name === "") return "must be a non-empty string";
  if (!/^[^\s/\\:@]+$/.test(name) || name.startsWith(".")) return `"${name}" must be one word without slashes, ":" or "@", not starting with "."`;
  return undefined;
}

/** The source of one entry of `extraKnownMarketplaces`, or what is wrong with it (a sentence that
 * names the inner key at fault). */
export function declaredSource(name: string, entry: unknown): { source: DeclaredSource } | { problem: string } {
  const nameProblem = marketplaceNameProblem(name);
  if (nameProblem) return { problem: `the marketplace's name ${nameProblem}` };
  if (!isJsonObject(entry)) return { problem: `must be an object such as ${EXAMPLE}` };
  const source = entry.source;
  if (!isJsonObject(source)) return { problem: `"source" must be an object such as {"source": "github", "repo": "owner/repo"}` };
  const kinds = `harness plugin marketplace add takes ${ADDABLE_SOURCES.slice(0, -1).join(", ")} and ${ADDABLE_SOURCES.at(-1)} sources`;
  if (typeof source.source !== "string") return { problem: `"source.source" must name the kind of source: ${kinds}` };
  if (!(ADDABLE_SOURCES as readonly string[]).includes(source.source)) return { problem: `its source is "${source.source}", which harness cannot add: ${kinds}` };
  const ref = source.ref;
  if (ref !== undefined && (typeof ref !== "string" || !/^(?!-)[^\s\0]+$/.test(ref))) return { problem: `"source.ref" must be a branch or tag name` };
  if (source.source === "directory") {
    if (typeof source.path !== "string" || source.path.trim() === "") return { problem: `"source.path" must be the marketplace's directory` };
    return { source: { source: "directory", path: source.path } };
  }
  if (source.path !== undefined) return { problem: `"source.path" (a marketplace in a folder of its repository) is not taken by harness plugin marketplace add; declare a repository whose root holds .claude-plugin/marketplace.json` };
  const refPart = typeof ref === "string" ? { ref } : {};
  if (source.source === "github") {
    if (typeof source.repo !== "string" || !/^[\w.-]+\/[\w.-]+$/.test(source.repo)) return { problem: `"source.repo" must be a GitHub repository as "owner/repo"` };
    return { source: { source: "github", repo: source.repo, ...refPart } };
  }
  if (typeof source.url !== "string" || !/^\S+$/.test(source.url) || source.url.startsWith("-")) return { problem: `"source.url" must be a git URL` };
  return { source: { source: "git", url: source.url, ...refPart } };
}

/** A declared marketplace, as one settings file declares it. */
export type DeclaredMarketplace = { name: string; file: string; source?: DeclaredSource; problem?: string };

/** The marketplaces `settings` (read from `file`, of the project at `projectRoot`) declare, each
 * with its source or its problem; a directory is made absolute against the project. */
export function declaredMarketplaces(settings: Record<string, unknown>, file: string, projectRoot: string): DeclaredMarketplace[] {
  const value = settings.extraKnownMarketplaces;
  if (value === undefined) return [];
  if (!isJsonObject(value)) return [];
  return Object.entries(value).map(([name, entry]) => {
    const read = declaredSource(name, entry);
    if ("problem" in read) return { name, file, problem: read.problem };
    const source = read.source.source === "directory" ? { ...read.source, path: path.resolve(projectRoot, read.source.path) } : read.source;
    return { name, file, source };
  });
}

/** The argument of `harness plugin marketplace add` that adds `source`; undefined when that
 * command cannot say it (a ref). */
export function addArgument(source: DeclaredSource): string | undefined {
  if ("ref" in source && source.ref !== undefined) return undefined;
  const word = source.source === "github" ? source.repo : source.source === "git" ? source.url : source.path;
  return /^[\w@%+=:,./~-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
