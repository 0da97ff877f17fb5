// The policy tier a program that starts the run puts on it (the Claude Agent SDK's `managedSettings`,
// Claude Code's "parent" tier), as Claude Code takes it:
// - only what restricts is kept (deny and ask rules, the allowManaged*Only locks, MCP server
//   deny/allow lists, the sandbox's tightening switches and deny lists…); whatever would loosen or
//   merely choose (allow rules, defaultMode, env, model, hooks, …) is left out and named;
// - a restriction Claude Code would take that this harness does not enforce (allowManagedDomainsOnly,
//   deniedModels, the disable* switches…) is a problem: the program asked for it, and a caller
//   refuses the tier rather than run without it;
// - with no managed-settings.json on the machine it is the managed tier;
// - with one, that file is the policy and the program's tier is dropped, unless the file says
//   `"parentSettingsBehavior": "merge"`: the tier then merges beneath it (the file wins where both
//   set a value; lists join), but an allowedMcpServers or availableModels of the tier holds only
//   where the file has none, so the program cannot widen the machine's allowlists.
import { parseMcpPolicyEntry } from "../mcp/policy.ts";
import { describeValue } from "./describe-value.ts";
import { mergeSettings } from "./merge.ts";
import type { Settings, SettingsDiagnostic, SettingsSource } from "./types.ts";
import { keyPath, validateSettings } from "./validate.ts";
import { isJsonObject } from "../config/json-text.ts";

type Restricts = "list" | "emptyList" | true | false | "disable";

/** The keys kept, by path, with the value that restricts: any list, only an empty one, or one value. */
const RESTRICTING: ReadonlyArray<readonly [path: readonly string[], restricts: Restricts]> = [
  [["permissions", "deny"], "list"],
  [["permissions", "ask"], "list"],
  [["permissions", "disableBypassPermissionsMode"], "disable"],
  [["allowManagedPermissionRulesOnly"], true],
  [["allowManagedHooksOnly"], true],
  [["allowManagedMcpServersOnly"], true],
  [["allowedMcpServers"], "list"],
  [["deniedMcpServers"], "list"],
  [["disabledMcpjsonServers"], "list"],
  // Enforced as Claude Code's enforceAvailableModels does, which is therefore always on.
  [["availableModels"], "list"],
  [["enforceAvailableModels"], true],
  // These lists join across every settings file: only an empty one (admit nothing) cannot widen another's.
  [["allowedHttpHookUrls"], "emptyList"],
  [["httpHookAllowedEnvVars"], "emptyList"],
  [["sandbox", "enabled"], true],
  [["sandbox", "failIfUnavailable"], true],
  [["sandbox", "autoAllowBashIfSandboxed"], false],
  [["sandbox", "allowUnsandboxedCommands"], false],
  [["sandbox", "network", "deniedDomains"], "list"],
  [["sandbox", "network", "allowAllUnixSockets"], false],
  [["sandbox", "network", "allowLocalBinding"], false],
  [["sandbox", "filesystem", "denyRead"], "list"],
  [["sandbox", "filesystem", "denyWrite"], "list"],
];

/** Restrictions Claude Code takes from a program's tier that nothing here enforces, by path, with the
 * value that restricts; besides these, any other top-level `disable…` switch set to true or
 * "disable", and `enable…` one set to false. */
const UNENFORCED: ReadonlyArray<readonly [path: readonly string[], restricts: Restricts]> = [
  [["permissions", "disableAutoMode"], "disable"],
  [["permissions", "blockReadsOutsideWorkingDirectories"], true],
  [["permissions", "blockWritesOutsideWorkingDirectories"], true],
  [["permissions", "denyInsteadOfPrompting"], true],
  [["isolatePeerMachines"], true],
  [["fastModePerSessionOptIn"], true],
  [["deniedModels"], "list"],
  [["allowedProviders"], "list"],
  [["strictKnownMarketplaces"], "list"],
  [["allowedMarketplaces"], "list"],
  [["blockedMarketplaces"], "list"],
  [["strictPluginOnlyCustomization"], "list"],
  [["sandbox", "network", "allowManagedDomainsOnly"], true],
  [["sandbox", "network", "strictAllowlist"], true],
  [["sandbox", "filesystem", "allowManagedReadPathsOnly"], true],
  [["isolation", "required"], true],
];

export type ParentTier = {
  /** What restricts, validated. */
  settings: Settings;
  /** The key paths given that are left out, as `permissions.allow`, `env`. */
  ignored: string[];
  /** Values of kept keys that are malformed, and restrictions not enforced here (each left out). */
  problems: SettingsDiagnostic[];
};

/** The restricting part of `raw`, a program's policy tier; `file` names it in problems. */
export function parentTier(raw: unknown, file: string): ParentTier {
  const validated = validateSettings(raw, file);
  const given = validated.settings as Record<string, unknown>;
  const settings: Record<string, unknown> = {};
  const kept = new Set<string>();
  // A malformed value at a restriction, within one, or of an object that holds one ("sandbox": "on").
  const problems = validated.diagnostics.filter(
    (d) => d.key === undefined || RESTRICTING.some(([path]) => d.key === keyPath(path) || d.key!.startsWith(`${keyPath(path)}[`) || keyPath(path).startsWith(`${d.key}.`)),
  );
  for (const [path, restricts] of RESTRICTING) {
    const value = valueAt(given, path);
    if (value === undefined) continue;
    const problem = shapeProblem(value, restricts);
    if (problem) problems.push({ file, key: keyPath(path), message: `${problem}, not ${describeValue(value)}` });
    else if (restricting(value, restricts)) {
      setAt(settings, path, value);
      kept.add(keyPath(path));
    }
  }
  for (const [path, restricts] of [...UNENFORCED, ...switches(given)]) {
    const value = valueAt(given, path);
    if (value === undefined || !(shapeProblem(value, restricts) === undefined && restricting(value, restricts))) continue;
    problems.push({ file, key: keyPath(path), message: "a restriction harness does not enforce; leave it out rather than have the run go on without it" });
    kept.add(keyPath(path));
  }
  // Claude Code binds a program's disableAllHooks as allowManagedHooksOnly (the machine's own hooks
  // keep running, which a program's tier cannot stop), whatever its value but false and "false": an
  // enterprise configuration often gives a boolean as text.
  if (given.disableAllHooks !== undefined && given.disableAllHooks !== false && given.disableAllHooks !== "false") {
    settings.allowManagedHooksOnly = true;
    kept.add("disableAllHooks");
  }
  for (const key of ["allowedMcpServers", "deniedMcpServers"] as const) {
    const entries = settings[key];
    if (!Array.isArray(entries)) continue;
    entries.forEach((entry, i) => {
      const parsed = parseMcpPolicyEntry(entry);
      if (typeof parsed === "string") problems.push({ file, key: `${key}[${i}]`, message: parsed });
    });
  }
  for (const problem of problems) if (problem.key !== undefined) kept.add(problem.key);
  const ignored = isJsonObject(raw) ? ignoredPaths(raw, [...kept]) : [];
  return { settings: settings as Settings, ignored, problems };
}

/** `sources` (the files read, lowest precedence first) with the program's tier applied as the header
 * says; a tier that is dropped is said in `diagnostics`. */
export function withParentTier(sources: readonly SettingsSource[], parent: { file: string; settings: Settings }, diagnostics: SettingsDiagnostic[]): SettingsSource[] {
  const machine = sources.find((source) => source.scope === "managed");
  if (!machine) return [...sources, { scope: "managed", path: parent.file, settings: parent.settings }];
  if (machine.settings.parentSettingsBehavior !== "merge") {
    diagnostics.push({ file: parent.file, message: `not applied: the machine's managed settings (${machine.path}) are the policy, and take a program's only with "parentSettingsBehavior": "merge"` });
    return [...sources];
  }
  const merged: SettingsSource = { scope: "managed", path: `${machine.path} with ${parent.file}`, settings: mergeSettings([beneath(parent.settings, machine.settings), machine.settings]) };
  return sources.map((source) => (source === machine ? merged : source));
}

/** Two tiers of one program (--managed-settings, then the initialize request's) as one: both
 * restrict. Lists join, but an allowlist would widen the other: the second's allowedMcpServers
 * and availableModels hold only where the first has none. */
export function joinParentTiers(first: Settings, second: Settings): Settings {
  return mergeSettings([first, beneath(second, first)]);
}

/** `lower` as it is merged with `upper`: its allowedMcpServers and availableModels only where
 * `upper` has none, as a second allowlist would widen the first. */
function beneath(lower: Settings, upper: Settings): Settings {
  const rest = { ...lower };
  if (upper.allowedMcpServers !== undefined) delete rest.allowedMcpServers;
  if (upper.availableModels !== undefined) delete rest.availableModels;
  return rest;
}

/** The top-level switches of `given` that Claude Code takes as restrictions by their name's form
 * (`disable…`: true or "disable"; `enable…`: false), but those enforced here. */
function switches(given: Record<string, unknown>): Array<readonly [readonly string[], Restricts]> {
  return Object.entries(given).flatMap(([key, value]): Array<readonly [readonly string[], Restricts]> => {
    if (key === "disableAllHooks" || RESTRICTING.some(([path]) => path.length === 1 && path[0] === key)) return [];
    if (/^disable[A-Z]/.test(key)) return [[[key], value === "disable" ? "disable" : true]];
    return /^enable[A-Z]/.test(key) ? [[[key], false]] : [];
  });
}

function shapeProblem(value: unknown, restricts: Restricts): string | undefined {
  if (restricts === "list" || restricts === "emptyList") return Array.isArray(value) ? undefined : "must be a list";
  if (restricts === "disable") return typeof value === "string" ? undefined : 'must be "disable"';
  return typeof value === "boolean" ? undefined : "must be true or false";
}

function restricting(value: unknown, restricts: Restricts): boolean {
  if (restricts === "list") return true;
  if (restricts === "emptyList") return Array.isArray(value) && value.length === 0;
  return value === restricts;
}

function valueAt(root: Record<string, unknown>, path: readonly string[]): unknown {
  let node: unknown = root;
  for (const key of path) {
    if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function setAt(root: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = root;
  for (const key of path.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[path.at(-1)!] = structuredClone(value);
}

/** The key paths of `value` left out, each named at the highest level that can hold nothing kept:
 * `env`, `permissions.allow`. */
function ignoredPaths(value: Record<string, unknown>, kept: readonly string[], prefix: readonly string[] = []): string[] {
  return Object.entries(value).flatMap(([key, item]) => {
    const path = keyPath([...prefix, key]);
    if (kept.includes(path) || (prefix.length === 0 && key === "$schema")) return [];
    const holdsRestrictions = RESTRICTING.some(([restricting]) => keyPath(restricting).startsWith(`${path}.`));
    return holdsRestrictions && isJsonObject(item) ? ignoredPaths(item, kept, [...prefix, key]) : [path];
  });
}
