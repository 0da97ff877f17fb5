// Where the user's own configuration lives, as Claude Code finds it: `$CLAUDE_CONFIG_DIR` when it
// is set (settings.json, agents/, commands/, skills/, CLAUDE.md, rules/, output-styles/, plugins/
// and .claude.json all move there), else `<home>/.claude` and `<home>/.claude.json`. The project's
// own `.claude/` is not affected.
import path from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

/** The user's configuration directory. An empty CLAUDE_CONFIG_DIR counts as unset; a relative one
 * is taken from the process's working directory, where Claude Code takes it from. */
export function userConfigDir(home: string, env: Env = process.env): string {
  const given = env.CLAUDE_CONFIG_DIR;
  return given ? path.resolve(given) : path.join(home, ".claude");
}

/** The user's global configuration file (MCP servers, project approvals): `.claude.json` in
 * CLAUDE_CONFIG_DIR when it is set, else in the home directory. */
export function userConfigFile(home: string, env: Env = process.env): string {
  const given = env.CLAUDE_CONFIG_DIR;
  return path.join(given ? path.resolve(given) : home, ".claude.json");
}
