// Where each file scope's settings are kept, and where the `/path` patterns of their rules start:
// the one place that knows both, for loading the settings and for keeping permission updates.
import path from "node:path";
import type { SettingsFileScope, SettingsScope } from "./types.ts";
import { userConfigDir } from "../config/user-config-dir.ts";

export type SettingsDirs = { home: string; projectRoot: string };

/** The file a scope's settings are read from and permission updates written to. */
export function settingsFile(scope: SettingsFileScope, dirs: SettingsDirs): string {
  if (scope === "user") return path.join(userConfigDir(dirs.home), "settings.json");
  return path.join(dirs.projectRoot, ".claude", scope === "project" ? "settings.json" : "settings.local.json");
}

/** Where the `/path` patterns of a scope's rules start: the user's configuration directory
 * (`<home>/.claude`, or CLAUDE_CONFIG_DIR) for the user's settings,
 * the project root for every other scope, as in Claude Code. */
export function ruleRoot(scope: SettingsScope, dirs: SettingsDirs): string {
  return scope === "user" ? userConfigDir(dirs.home) : dirs.projectRoot;
}
