/** Where the managed settings are read unless a run names another file (Claude Code's path). */
export const DEFAULT_MANAGED_SETTINGS_PATH = "/etc/claude-code/managed-settings.json";
