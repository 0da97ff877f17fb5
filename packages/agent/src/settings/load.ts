import { realpathSync } from "node:fs";
import path from "node:path";
import { toPermissionRules } from "../permissions/parse-rule.ts";
import { resolveToolPath } from "../permissions/paths.ts";
import type { PermissionRule } from "../permissions/types.ts";
import { ruleRoot, settingsFile } from "./files.ts";
import { mergeSettings } from "./merge.ts";
import { parentTier, withParentTier } from "./parent-tier.ts";
import { readConfigJson } from "../config/files.ts";
import { comesWithRepository, isFileScope, SCOPES_BY_PRECEDENCE } from "./types.ts";
import type { LoadedSettings, ScopedPermissions, SettingsDiagnostic, SettingsFileScope, SettingsScope, SettingsSource } from "./types.ts";
import { validateSettings } from "./validate.ts";

export type LoadSettingsOptions = {
  cwd: string;
  /** Where `.claude/settings.json` and `.claude/settings.local.json` live; default `cwd`. */
  projectRoot?: string;
  /** User scope reads `<home>/.claude/settings.json`. */
  home: string;
  /** Managed settings file (on Linux usually /etc/claude-code/managed-settings.json); none if absent. */
  managedPath?: string;
  /** The run's own settings (Claude Code's --settings), already read: `file` names them in
   * diagnostics (the file they came from, or the flag for JSON given inline). */
  flag?: { file: string; settings: unknown };
  /** The policy tier a program that starts the run puts on it (the Agent SDK's managedSettings):
   * only what restricts is taken, as the managed tier or beneath the machine's (parent-tier.ts);
   * `file` names it in messages. */
  parent?: { file: string; settings: unknown };
  /** The scopes whose files are read; default all three. The managed settings and `flag` are read
   * whatever it says. */
  fileScopes?: readonly SettingsFileScope[];
};

/** Where each scope's file is. */
export function settingsPaths(o: LoadSettingsOptions): Record<SettingsScope, string | undefined> {
  const dirs = { home: o.home, projectRoot: path.resolve(o.cwd, o.projectRoot ?? ".") };
  return {
    user: settingsFile("user", dirs),
    project: settingsFile("project", dirs),
    local: settingsFile("local", dirs),
    flag: o.flag?.file,
    managed: o.managedPath,
  };
}

/** Reads the managed, user, project and local settings files, validates each and the run's own
 * (problems become diagnostics, never errors) and merges them with precedence managed > the run's
 * own > local > project > user.
 * Missing files are skipped silently; a file that is not valid JSON is skipped with a diagnostic,
 * and when it is the managed one, `policyProblem` says so. */
export async function loadSettings(o: LoadSettingsOptions): Promise<LoadedSettings> {
  const paths = settingsPaths(o);
  const root = path.resolve(o.cwd, o.projectRoot ?? ".");
  const diagnostics: SettingsDiagnostic[] = [];
  const files = await Promise.all(
    SCOPES_BY_PRECEDENCE.map(async (scope) => {
      const file = paths[scope];
      if (scope === "flag" && o.flag) return { scope, file, read: { kind: "ok", value: o.flag.settings } as const };
      const skipped = file === undefined || (o.fileScopes !== undefined && isFileScope(scope) && !o.fileScopes.includes(scope));
      if (skipped) return { scope, file, read: { kind: "missing" } as const };
      return { scope, file, read: await readConfigJson(file), fileScope: isFileScope(scope) };
    }),
  );
  let sources: SettingsSource[] = [];
  let policyProblem: string | undefined;
  // A project whose root is the home directory has its `.claude/settings.json` in the user's
  // place: that one file is read once, as the user's settings (the lower scope), as Claude Code does.
  const readFiles = new Set<string>();
  for (const { scope, file, read, fileScope } of files) {
    if (file === undefined || read.kind === "missing") continue;
    // Only files that are there: most runs have few, and a missing one needs no name.
    const identity = fileScope ? fileIdentity(file) : undefined;
    if (identity !== undefined) {
      if (readFiles.has(identity)) continue;
      readFiles.add(identity);
    }
    if (read.kind === "error") {
      diagnostics.push({ file, message: read.message });
      if (scope === "managed") policyProblem = `${file}: ${read.message}`;
      continue;
    }
    const validated = validateSettings(read.value, file);
    // A diagnostic with no key is about the whole file: nothing of it holds.
    const whole = validated.diagnostics.find((diagnostic) => diagnostic.key === undefined);
    if (scope === "managed" && whole) policyProblem = `${file}: ${whole.message}`;
    // A broken allowlist dropped would admit every model: the machine's policy fails closed.
    const models = validated.diagnostics.find((diagnostic) => diagnostic.key === "availableModels" || diagnostic.key?.startsWith("availableModels["));
    if (scope === "managed" && models && !whole) policyProblem = `${file}: ${models.key}: ${models.message}`;
    // Loops, not push(...spread): a settings file may hold rules by the hundred thousand, more
    // arguments than a call takes.
    for (const diagnostic of validated.diagnostics) diagnostics.push(diagnostic);
    sources.push({ scope, path: file, settings: withoutBypassFromProject(scope, file, validated.settings, diagnostics) });
  }
  if (o.parent) {
    const tier = parentTier(o.parent.settings, o.parent.file);
    for (const diagnostic of tier.problems) diagnostics.push(diagnostic);
    sources = withParentTier(sources, { file: o.parent.file, settings: tier.settings }, diagnostics);
  }
  const managed = sources.find((source) => source.scope === "managed")?.settings;
  const managedRulesOnly = managed?.allowManagedPermissionRulesOnly === true;
  const lists = sources.flatMap((source) => (source.settings.availableModels ? [{ availableModels: source.settings.availableModels }] : []));
  const availableModels = managed?.availableModels ?? (lists.length > 0 ? mergeSettings(lists).availableModels : undefined);
  return {
    settings: mergeSettings(sources.map((source) => source.settings)),
    sources,
    diagnostics,
    permissions: scopedPermissions(managedRulesOnly ? sources.filter((source) => source.scope === "managed") : sources, { root, home: o.home }),
    locks: {
      bypassDisabled: sources.some((source) => source.settings.permissions?.disableBypassPermissionsMode === "disable"),
      managedHooksOnly: managed?.allowManagedHooksOnly === true,
      managedRulesOnly,
    },
    ...(availableModels !== undefined && { availableModels }),
    ...(policyProblem !== undefined && { policyProblem: `the managed settings ${policyProblem}; a run does not start without the machine's policy` }),
  };
}

/** What names one file under any of its paths: its real path (one system call), or the path
 * resolved when it cannot be had (a file read as an error still has one). */
function fileIdentity(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return path.resolve(file);
  }
}

/** A project's own files (`.claude/settings.json`, `.claude/settings.local.json`) come with the
 * repository: they may not turn approvals off for whoever opens it. bypassPermissions there is
 * dropped with a diagnostic; the user's and managed settings, and the run's own mode, still may. */
function withoutBypassFromProject(scope: SettingsScope, file: string, settings: SettingsSource["settings"], diagnostics: SettingsDiagnostic[]): SettingsSource["settings"] {
  if (!comesWithRepository(scope) || settings.permissions?.defaultMode !== "bypassPermissions") return settings;
  diagnostics.push({
    file,
    key: "permissions.defaultMode",
    message: `"bypassPermissions" is ignored in a project's settings, which come with the repository; set it in ~/.claude/settings.json, or choose the mode for the run`,
  });
  const { defaultMode: _dropped, ...permissions } = settings.permissions;
  return { ...settings, permissions };
}

/** The rules of every source with their base directories: `/path` patterns start at the project
 * root for project, local and managed settings and at `<home>/.claude` for user settings, as in
 * Claude Code. Rules repeated with the same base are kept once. */
export function scopedPermissions(sources: readonly SettingsSource[], dirs: { root: string; home: string }): ScopedPermissions {
  const out: ScopedPermissions = { allow: [], ask: [], deny: [], additionalDirectories: [] };
  const seen = new Set<string>();
  for (const source of sources) {
    const permissions = source.settings.permissions;
    if (permissions === undefined) continue;
    const root = ruleRoot(source.scope, { home: dirs.home, projectRoot: dirs.root });
    for (const kind of ["allow", "ask", "deny"] as const) {
      const { rules } = toPermissionRules(permissions[kind] ?? [], { root, source: source.path });
      for (const rule of rules) if (firstTime(seen, kind, rule)) out[kind].push(rule);
    }
    for (const dir of permissions.additionalDirectories ?? []) {
      const resolved = resolveToolPath(dir, dirs.root, dirs.home);
      if (!out.additionalDirectories.includes(resolved)) out.additionalDirectories.push(resolved);
    }
    if (permissions.defaultMode !== undefined) out.defaultMode = permissions.defaultMode;
  }
  return out;
}

function firstTime(seen: Set<string>, kind: string, rule: PermissionRule): boolean {
  const key = `${kind}\0${rule.root}\0${rule.text}`;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
}
