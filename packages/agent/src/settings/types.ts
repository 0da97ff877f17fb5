import type { PermissionMode, PermissionRule } from "../permissions/types.ts";
import type { SandboxSettings } from "../sandbox/settings.ts";

/** Settings scopes, lowest precedence first. "flag" is the run's own (Claude Code's --settings):
 * above the files, below the managed settings. */
export type SettingsScope = "user" | "project" | "local" | "flag" | "managed";

export const SCOPES_BY_PRECEDENCE: readonly SettingsScope[] = ["user", "project", "local", "flag", "managed"];

/** The scopes whose files a run may leave unread (Claude Code's --setting-sources). */
export type SettingsFileScope = "user" | "project" | "local";

/** Whether `scope` is one of those (a settings file the run may leave unread). */
export function isFileScope(scope: string): scope is SettingsFileScope {
  return scope === "user" || scope === "project" || scope === "local";
}

/** Whether a scope's file lies in the project, and so may come with the repository (settings.json,
 * and settings.local.json, which a repository can hold too): such settings may not loosen what
 * guards the user (bypassPermissions, MCP servers and their approval, where the model is reached).
 * The user's, the run's own and the managed settings are the user's and their organisation's own. */
export function comesWithRepository(scope: SettingsScope): boolean {
  return scope === "project" || scope === "local";
}

export type PermissionsSettings = {
  allow?: string[];
  ask?: string[];
  deny?: string[];
  defaultMode?: PermissionMode;
  additionalDirectories?: string[];
  [key: string]: unknown;
};

/** One hook group as settings hold it; the hooks module validates it fully. */
export type HookGroupSettings = { matcher?: string; hooks: unknown[]; [key: string]: unknown };

/** A settings file's content (Claude Code's keys). Keys not listed are kept as they are and
 * otherwise ignored. */
export type Settings = {
  permissions?: PermissionsSettings;
  /** Event name → hook groups. */
  hooks?: Record<string, HookGroupSettings[]>;
  env?: Record<string, string>;
  model?: string;
  /** The output style of the main agent's replies (context/output-styles.ts). */
  outputStyle?: string;
  /** The agent the main thread runs as (RunAgentOptions.mainAgent). */
  agent?: string;
  /** Extended thinking on for every request (harness/model/output-tokens.ts). */
  alwaysThinkingEnabled?: boolean;
  /** A command whose output is the Anthropic API key (harness/model/api-key-helper.ts); from the user's
   * or the managed settings only. */
  apiKeyHelper?: string;
  /** A command printing AWS credentials for Amazon Bedrock, `{"Credentials": {"AccessKeyId",
   * "SecretAccessKey", "SessionToken"}}` (harness/model/aws-commands.ts); from the user's or the managed
   * settings only. */
  awsCredentialExport?: string;
  /** A command renewing AWS credentials (`aws sso login`), run when none are found or Bedrock says
   * they expired; likewise. */
  awsAuthRefresh?: string;
  mcpServers?: Record<string, Record<string, unknown>>;
  enabledMcpjsonServers?: string[];
  disabledMcpjsonServers?: string[];
  enableAllProjectMcpServers?: boolean;
  sandbox?: SandboxSettings;
  /** false: the conversation is not compacted by itself as it nears the window (harness/compaction.ts). */
  autoCompactEnabled?: boolean;
  /** Globs of memory files not to load, matched against absolute paths (context/load-memory.ts). */
  claudeMdExcludes?: string[];
  /** false: no auto memory (context/auto-memory.ts); CLAUDE_CODE_DISABLE_AUTO_MEMORY decides first. */
  autoMemoryEnabled?: boolean;
  /** Where the auto memory is, absolute or `~/…`; only the user's, the run's and the managed
   * settings' counts. */
  autoMemoryDirectory?: string;
  /** true: skills' and commands' `!` shell commands are not run (harness/commands/prompt.ts). */
  disableSkillShellExecution?: boolean;
  /** The models a run may be set to (harness/model/available-models.ts); see LoadedSettings.availableModels. */
  availableModels?: string[];
  /** Marketplaces a repository declares for its plugins, by name (plugins/declared-marketplaces.ts);
   * those that cannot be added are left out when the settings are read. */
  extraKnownMarketplaces?: Record<string, unknown>;
  /** The line `harness chat` shows below the typed one at a terminal (cli's chat/screen/status-line.ts). */
  statusLine?: { type: "command"; command: string; padding?: number; refreshInterval?: number };
  [key: string]: unknown;
};

/** A problem in a user file. It never stops a run: the rest of the file still loads. */
export type SettingsDiagnostic = {
  file: string;
  /** Key path inside the file, e.g. `permissions.allow[2]`; absent when the whole file is at fault. */
  key?: string;
  message: string;
};

export type SettingsSource = { scope: SettingsScope; path: string; settings: Settings };

/** The permission rules of every scope, each with the base directory of its `/path` patterns. */
export type ScopedPermissions = {
  allow: PermissionRule[];
  ask: PermissionRule[];
  deny: PermissionRule[];
  /** Absolute: `~/` is the home directory; relative entries start at the project root. */
  additionalDirectories: string[];
  defaultMode?: PermissionMode;
};

export type LoadedSettings = {
  /** Every scope merged (see mergeSettings). */
  settings: Settings;
  /** The files that exist and parse, lowest precedence first. */
  sources: SettingsSource[];
  diagnostics: SettingsDiagnostic[];
  permissions: ScopedPermissions;
  /** What the settings lock (Claude Code's keys for managed settings): `bypassDisabled`,
   * `permissions.disableBypassPermissionsMode: "disable"` in any scope (it only restricts);
   * `managedHooksOnly`, `allowManagedHooksOnly: true` in the managed settings;
   * `managedRulesOnly`, `allowManagedPermissionRulesOnly: true` there, which already left the other
   * scopes' rules out of `permissions` (and leaves out skills' and commands' allowed-tools). */
  locks: { bypassDisabled: boolean; managedHooksOnly: boolean; managedRulesOnly: boolean };
  /** The models a run may be set to: the managed settings' availableModels when they set one (no
   * other scope widens it, as under Claude Code's enforceAvailableModels), else the other scopes'
   * lists joined; undefined when no scope sets one (no limit). */
  availableModels?: string[];
  /** The machine's managed settings file exists but cannot be read, or is not an object of
   * settings: what is wrong, naming the file. A run does not start without its policy (Claude Code
   * fails closed), where a broken file of another scope is only said and skipped. */
  policyProblem?: string;
};
