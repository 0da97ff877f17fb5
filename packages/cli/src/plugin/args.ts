// Command-line parsing for `harness plugin …`, Claude Code's `claude plugin` subcommands. Pure: the
// arguments after "plugin" in, a command or a one-line usage error out.
import { type OptionSpec, scan } from "../scan-options.ts";

/** Where a plugin is installed and enabled, as Claude Code names its scopes: user, for every
 * project (~/.claude/settings.json); project, shared with the project (.claude/settings.json);
 * local, yours in this project only (.claude/settings.local.json). */
export const PLUGIN_SCOPES = ["user", "project", "local"] as const;
export type PluginScope = (typeof PLUGIN_SCOPES)[number];

export type PluginCommand =
  | { action: "marketplace-add"; source: string }
  | { action: "marketplace-list" }
  /** `keepData`: the data directories of the plugins it uninstalls stay. */
  | { action: "marketplace-remove"; name: string; keepData?: boolean }
  /** Without `name`: every marketplace. */
  | { action: "marketplace-update"; name?: string }
  /** `plugin` as typed: `name@marketplace`, or a name to look for in every marketplace. */
  | { action: "install"; plugin: string; scope: PluginScope }
  /** Without `scope`: the one scope the plugin is installed in for this project. */
  | { action: "enable" | "disable"; plugin: string; scope?: PluginScope }
  /** `keepData`: the plugin's data directory stays when its last installation goes. */
  | { action: "uninstall"; plugin: string; scope?: PluginScope; keepData?: boolean }
  | { action: "list" };

export type PluginParsed = { kind: "plugin"; plugin: PluginCommand } | { kind: "help"; topic: "plugin" } | { kind: "usage-error"; message: string; topic: "plugin" };

const SPEC: OptionSpec = {
  "-s": { key: "scope", value: true, repeat: true },
  "--scope": { key: "scope", value: true, repeat: true },
  "-h": { key: "help", value: false },
  "--help": { key: "help", value: false },
  "--keep-data": { key: "keepData", value: false },
};
const ALIASES: Record<string, string> = { i: "install", remove: "uninstall", rm: "uninstall", ls: "list" };
const MARKETPLACE_ALIASES: Record<string, string> = { rm: "remove", ls: "list" };

export function parsePlugin(args: readonly string[]): PluginParsed {
  const usage = (message: string): PluginParsed => ({ kind: "usage-error", message, topic: "plugin" });
  const [first, ...rest] = args;
  if (first === undefined || first === "help" || first === "-h" || first === "--help") return { kind: "help", topic: "plugin" };
  const marketplace = first === "marketplace";
  const sub = marketplace ? MARKETPLACE_ALIASES[rest[0] ?? ""] ?? rest[0] : ALIASES[first] ?? first;
  const words = marketplace ? rest.slice(1) : rest;
  const name = marketplace ? `marketplace ${sub ?? ""}`.trim() : sub;
  const known = marketplace ? ["add", "list", "remove", "update"] : ["install", "uninstall", "enable", "disable", "list"];
  if (marketplace && (sub === undefined || sub === "-h" || sub === "--help")) return { kind: "help", topic: "plugin" };
  if (!known.includes(sub!)) return usage(`unknown plugin command "${marketplace ? `marketplace ${sub}` : first}"`);

  const scanned = scan(words, SPEC, `plugin ${name}`, { rulesAsOneArgument: false });
  if (!scanned.ok) return usage(scanned.message);
  if (scanned.options.help) return { kind: "help", topic: "plugin" };
  const positionals = scanned.positionals;
  const given = scanned.options.scope as string[] | undefined;
  const takesScope = !marketplace && sub !== "list";
  if (given && !takesScope) return usage(`"harness plugin ${name}" takes no --scope`);
  const keepData = scanned.options.keepData === true;
  if (keepData && sub !== "uninstall" && !(marketplace && sub === "remove")) return usage(`"harness plugin ${name}" takes no --keep-data`);
  if (given && given.length > 1) return usage("--scope may be given once");
  const scope = given?.[0];
  if (scope !== undefined && !PLUGIN_SCOPES.includes(scope as PluginScope)) return usage(`--scope must be one of ${PLUGIN_SCOPES.join(", ")}, not "${scope}"`);
  const count = (min: number, max: number, what: string): string | undefined =>
    positionals.length < min ? `"harness plugin ${name}" needs ${what}` : positionals.length > max ? `unexpected argument "${positionals[max]}" for "harness plugin ${name}"` : undefined;
  const ok = (plugin: PluginCommand): PluginParsed => ({ kind: "plugin", plugin });

  const problem =
    sub === "list" ? count(0, 0, "no arguments")
    : sub === "update" ? count(0, 1, "at most a marketplace's name")
    : sub === "add" ? count(1, 1, "a source: a directory, a git URL or owner/repo")
    : sub === "remove" ? count(1, 1, "a marketplace's name")
    : count(1, 1, "a plugin: name@marketplace");
  if (problem) return usage(problem);
  const [arg] = positionals;
  if (marketplace) {
    if (sub === "add") return ok({ action: "marketplace-add", source: arg! });
    if (sub === "list") return ok({ action: "marketplace-list" });
    if (sub === "remove") return ok({ action: "marketplace-remove", name: arg!, ...(keepData && { keepData }) });
    return ok({ action: "marketplace-update", ...(arg !== undefined && { name: arg }) });
  }
  if (sub === "list") return ok({ action: "list" });
  if (sub === "install") return ok({ action: "install", plugin: arg!, scope: (scope as PluginScope | undefined) ?? "user" });
  const scoped = scope !== undefined ? { scope: scope as PluginScope } : {};
  if (sub === "uninstall") return ok({ action: "uninstall", plugin: arg!, ...scoped, ...(keepData && { keepData }) });
  return ok({ action: sub as "enable" | "disable", plugin: arg!, ...scoped });
}
