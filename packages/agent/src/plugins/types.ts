import type { HooksConfig } from "../hooks/types.ts";

/** Where a plugin came from: installed (by `harness plugin install` or Claude Code) and enabled in
 * the settings, or given for the run (`--plugin-dir`). */
export type PluginSource = "installed" | "plugin-dir";

/** A plugin MCP server's entry as the plugin writes it, with where it is written. */
export type PluginMcpEntry = { name: string; raw: unknown; file: string; key: string };

/** A plugin language server's entry as the plugin writes it (lsp/config.ts reads it), by its own
 * name, with where it is written. */
export type PluginLspEntry = { name: string; raw: unknown; file: string; key: string };

/** A plugin that loaded: what it adds, found in its default folders and its manifest's paths. The
 * loaders of skills, commands, agents, hooks, MCP servers and output styles read its components as
 * they read the user's, each named `<plugin>:<name>`. */
export type Plugin = {
  name: string;
  /** `name@marketplace`, as installed_plugins.json and `enabledPlugins` name it; `name@inline` for
   * a plugin given with --plugin-dir. */
  id: string;
  /** Absolute: what ${CLAUDE_PLUGIN_ROOT} stands for. */
  root: string;
  /** What ${CLAUDE_PLUGIN_DATA} stands for: ~/.claude/plugins/data/<id>, kept across updates. */
  dataDir: string;
  source: PluginSource;
  version?: string;
  description?: string;
  /** Enabled by the managed settings: its hooks run under allowManagedHooksOnly too. */
  managed?: boolean;
  /** Directories and .md files of commands. */
  commandPaths: string[];
  /** Directories holding `<name>/SKILL.md`. */
  skillDirs: string[];
  /** Directories and .md files of agents. */
  agentPaths: string[];
  /** Directories and .md files of output styles. */
  outputStylePaths: string[];
  /** Its hooks, ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} substituted, each with those two in
   * its environment. */
  hooks: HooksConfig;
  mcpServers: PluginMcpEntry[];
  /** Of `.lsp.json` and the manifest's `lspServers`. */
  lspServers: PluginLspEntry[];
};

export type PluginDiagnostic = { file: string; key?: string; message: string };

export type PluginDiscovery = { plugins: Plugin[]; diagnostics: PluginDiagnostic[] };

/** The variables a plugin's hooks, MCP servers, skills and agents may name. */
export function pluginVariables(plugin: Pick<Plugin, "root" | "dataDir">): Record<string, string> {
  return { CLAUDE_PLUGIN_ROOT: plugin.root, CLAUDE_PLUGIN_DATA: plugin.dataDir };
}

/** `text` with ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} replaced. */
export function withPluginVariables(text: string, plugin: Pick<Plugin, "root" | "dataDir">): string {
  return text.replaceAll("${CLAUDE_PLUGIN_ROOT}", () => plugin.root).replaceAll("${CLAUDE_PLUGIN_DATA}", () => plugin.dataDir);
}
