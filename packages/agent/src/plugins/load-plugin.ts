// One plugin directory → a Plugin, or the reason it cannot load. The manifest is optional (the
// plugin is then named after what installed it, or its directory); the default folders are
// `commands/`, `agents/`, `skills/`, `output-styles/`, `hooks/hooks.json`, `.mcp.json` and
// `.lsp.json`. The manifest's `commands`, `agents` and `outputStyles` replace their default folder,
// `skills` adds to it, and its hooks, MCP and language servers join those of the default files, as
// Claude Code has it.
import { pluginDataDir } from "./data-dir.ts";
import path from "node:path";
import { readConfigJson, statConfig } from "../config/files.ts";
import { mergeHooksConfigs, parseHooksConfig } from "../hooks/parse-config.ts";
import { makeDirs } from "../files/make-dirs.ts";
import type { HooksConfig } from "../hooks/types.ts";
import { parseManifest, type PluginManifest } from "./manifest.ts";
import { pluginVariables, withPluginVariables, type Plugin, type PluginDiagnostic, type PluginSource } from "./types.ts";
import { isJsonObject } from "../config/json-text.ts";
import { userConfigDir } from "../config/user-config-dir.ts";

export const MANIFEST_PATH = path.join(".claude-plugin", "plugin.json");

export type LoadPluginOptions = {
  /** The name when there is no manifest: the installed plugin's, or the directory's. */
  fallbackName: string;
  /** `name@marketplace`; default `<name>@inline`. */
  id?: string;
  source: PluginSource;
  home: string;
  managed?: boolean;
};

export type LoadedPlugin = { ok: true; plugin: Plugin; diagnostics: PluginDiagnostic[] } | { ok: false; diagnostic: PluginDiagnostic };

/** Never rejects. What keeps the whole plugin from loading (no directory, a manifest or a hooks or
 * MCP file that is not valid) is one diagnostic naming the plugin; a single bad hook or server is
 * left out with a diagnostic and the rest loads. */
export async function loadPlugin(dir: string, options: LoadPluginOptions): Promise<LoadedPlugin> {
  const root = path.resolve(dir);
  // Named as the user knows it: by its manifest once that is read.
  let named = options.fallbackName;
  const fail = (file: string, message: string): LoadedPlugin => ({ ok: false, diagnostic: { file, message: `Plugin ${named} is not loaded: ${message}` } });
  try {
    if (!(await statConfig(root)).isDirectory()) return fail(root, "it is not a directory");
  } catch {
    return fail(root, "its directory does not exist");
  }
  const manifestFile = path.join(root, MANIFEST_PATH);
  const read = await readConfigJson(manifestFile);
  let manifest: PluginManifest = { name: options.fallbackName };
  if (read.kind === "error") return fail(manifestFile, read.message);
  if (read.kind === "ok") {
    const parsed = parseManifest(read.value, root);
    if (!parsed.ok) return fail(manifestFile, parsed.message);
    manifest = parsed.manifest;
    named = manifest.name;
  }
  const id = options.id ?? `${manifest.name}@inline`;
  const plugin: Plugin = {
    name: manifest.name,
    id,
    root,
    dataDir: pluginDataDir(path.join(userConfigDir(options.home), "plugins"), id),
    source: options.source,
    ...(manifest.version !== undefined && { version: manifest.version }),
    ...(manifest.description !== undefined && { description: manifest.description }),
    ...(options.managed && { managed: true }),
    commandPaths: manifest.commands ?? [path.join(root, "commands")],
    skillDirs: [path.join(root, "skills"), ...(manifest.skills ?? [])],
    agentPaths: manifest.agents ?? [path.join(root, "agents")],
    outputStylePaths: manifest.outputStyles ?? [path.join(root, "output-styles")],
    hooks: {},
    mcpServers: [],
    lspServers: [],
  };
  const diagnostics: PluginDiagnostic[] = [];

  const hookSources = await jsonSources(path.join(root, "hooks", "hooks.json"), manifest.hooks, manifestFile, "hooks");
  if ("error" in hookSources) return fail(hookSources.file, hookSources.error);
  const configs: HooksConfig[] = [];
  for (const { value, file, key } of hookSources) {
    // hooks.json holds `{ "hooks": { <event>: […] } }`; the bare event map is read too.
    const events = isJsonObject(value) && isJsonObject(value.hooks) ? value.hooks : value;
    const parsed = parseHooksConfig(events, file);
    diagnostics.push(...parsed.diagnostics.map((d) => ({ ...d, key: key && d.key ? `${key}.${d.key}` : d.key })));
    configs.push(parsed.config);
  }
  plugin.hooks = ownHooks(mergeHooksConfigs(configs), plugin);

  const mcpSources = await jsonSources(path.join(root, ".mcp.json"), manifest.mcpServers, manifestFile, "mcpServers");
  if ("error" in mcpSources) return fail(mcpSources.file, mcpSources.error);
  const seen = new Set<string>();
  for (const { value, file, key } of mcpSources) {
    // `.mcp.json` holds `{ "mcpServers": { <name>: {…} } }`; the bare map is read too.
    const wrapped = isJsonObject(value) && isJsonObject(value.mcpServers);
    const servers = wrapped ? value.mcpServers : value;
    const prefix = [key, wrapped ? "mcpServers" : undefined].filter(Boolean).join(".");
    if (!isJsonObject(servers)) {
      diagnostics.push({ file, ...(key && { key }), message: "must be an object mapping MCP server names to server configs; no server of it is started" });
      continue;
    }
    for (const [name, raw] of Object.entries(servers)) {
      if (seen.has(name)) continue;
      seen.add(name);
      plugin.mcpServers.push({ name: pluginServerName(plugin.name, name), raw, file, key: prefix ? `${prefix}.${name}` : name });
    }
  }
  const lspSources = await jsonSources(path.join(root, ".lsp.json"), manifest.lspServers, manifestFile, "lspServers");
  if ("error" in lspSources) return fail(lspSources.file, lspSources.error);
  const lspSeen = new Set<string>();
  for (const { value, file, key } of lspSources) {
    // `.lsp.json` maps server names to servers; `{ "lspServers": {…} }` is read too.
    const wrapped = isJsonObject(value) && isJsonObject(value.lspServers);
    const servers = wrapped ? value.lspServers : value;
    const prefix = [key, wrapped ? "lspServers" : undefined].filter(Boolean).join(".");
    if (!isJsonObject(servers)) {
      diagnostics.push({ file, ...(key && { key }), message: `must be an object mapping language server names to servers; plugin ${plugin.name} starts no language server of it` });
      continue;
    }
    for (const [name, raw] of Object.entries(servers)) {
      if (lspSeen.has(name)) continue;
      lspSeen.add(name);
      plugin.lspServers.push({ name, raw, file, key: prefix ? `${prefix}.${name}` : name });
    }
  }
  // Claude Code makes the data directory the first time the plugin names it; its hooks and servers
  // may `cd` there or keep their node_modules there from the start.
  const commands = Object.values(plugin.hooks).flatMap((groups) => groups.flatMap((group) => group.hooks.map((hook) => (hook.type === "command" ? hook.command : ""))));
  if (commands.some((command) => command.includes(plugin.dataDir) || command.includes("${CLAUDE_PLUGIN_DATA}")) || JSON.stringify([plugin.mcpServers, plugin.lspServers]).includes("CLAUDE_PLUGIN_DATA")) {
    await makeDirs(plugin.dataDir).catch((error: Error) => diagnostics.push({ file: plugin.dataDir, message: `Plugin ${plugin.name}: cannot make its data directory: ${error.message}` }));
  }
  return { ok: true, plugin, diagnostics };
}

/** The name Claude Code gives a plugin's MCP server, `plugin:<plugin>:<server>`: its tools are
 * then `mcp__plugin_<plugin>_<server>__<tool>` (mcpToolName sanitises the ":"). */
export function pluginServerName(plugin: string, server: string): string {
  return `plugin:${plugin}:${server}`;
}

type JsonSource = { value: unknown; file: string; key?: string };

/** The default file's JSON (when it exists) and the manifest's files and inline values, each file
 * read once; a file that is missing or not JSON is the plugin's failure. */
async function jsonSources(defaultFile: string, fromManifest: PluginManifest["hooks"], manifestFile: string, key: string): Promise<JsonSource[] | { error: string; file: string }> {
  const sources: JsonSource[] = [];
  const files = new Set<string>();
  const first = await readConfigJson(defaultFile);
  if (first.kind === "error") return { error: first.message, file: defaultFile };
  if (first.kind === "ok") {
    sources.push({ value: first.value, file: defaultFile });
    files.add(defaultFile);
  }
  for (const file of fromManifest?.files ?? []) {
    if (files.has(file)) continue;
    files.add(file);
    const read = await readConfigJson(file);
    if (read.kind === "missing") return { error: `the manifest's ${key} names ${file}, which does not exist`, file: manifestFile };
    if (read.kind === "error") return { error: read.message, file };
    sources.push({ value: read.value, file });
  }
  (fromManifest?.inline ?? []).forEach((value, i) => sources.push({ value, file: manifestFile, key: fromManifest && fromManifest.inline.length > 1 ? `${key}[${i}]` : key }));
  return sources;
}

/** The plugin's command hooks with ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA} substituted and
 * set in their environment, as Claude Code runs a plugin's hooks. A path holding a character the
 * shell would act on (`"`, `$`, a backtick, `;`…) is not written into the command, where
 * `"${CLAUDE_PLUGIN_ROOT}/run.sh"` would run what the directory's name says: the shell expands the
 * variable from the environment instead, which reads the same for a quoted reference. */
function ownHooks(config: HooksConfig, plugin: Plugin): HooksConfig {
  const env = pluginVariables(plugin);
  const written = { root: plainForShell(plugin.root) ? plugin.root : "${CLAUDE_PLUGIN_ROOT}", dataDir: plainForShell(plugin.dataDir) ? plugin.dataDir : "${CLAUDE_PLUGIN_DATA}" };
  const out: HooksConfig = {};
  for (const [event, groups] of Object.entries(config) as [keyof HooksConfig, NonNullable<HooksConfig[keyof HooksConfig]>][]) {
    out[event] = groups.map((group) => ({
      ...group,
      hooks: group.hooks.map((hook) => (hook.type === "command" ? { ...hook, command: withPluginVariables(hook.command, written), env } : hook)),
    }));
  }
  return out;
}

/** Whether `text` reads the same to the shell written out, quoted or not, as expanded from a
 * variable: letters, digits, spaces (a space splits either way when unquoted) and `_.,:@%+=/-`. */
function plainForShell(text: string): boolean {
  return /^[\w .,:@%+=/-]*$/.test(text);
}

