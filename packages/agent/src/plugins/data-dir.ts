// Where a plugin keeps what it writes (${CLAUDE_PLUGIN_DATA}): a directory of its own under the
// user's plugins directory, named for its id as Claude Code names it, kept across updates.
import path from "node:path";

/** `pluginsDir`: the user's plugins directory (~/.claude/plugins unless CLAUDE_CONFIG_DIR moves it). */
export function pluginDataDir(pluginsDir: string, id: string): string {
  return path.join(pluginsDir, "data", id.replace(/[^A-Za-z0-9_-]/g, "-"));
}
