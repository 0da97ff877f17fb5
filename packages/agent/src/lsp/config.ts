// The language servers plugins declare, as Claude Code reads them: by name, in the manifest's
// `lspServers` (an object, or a path to a JSON file) or the plugin's `.lsp.json`. An entry that is
// not valid is left out with a diagnostic naming the plugin, the server and the field; the rest load.
import path from "node:path";
import { isJsonObject } from "../config/json-text.ts";
import { pluginServerName } from "../plugins/load-plugin.ts";
import { pluginVariables, withPluginVariables, type Plugin, type PluginDiagnostic } from "../plugins/types.ts";

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RESTARTS = 3;

export type LspServerConfig = {
  /** `plugin:<plugin>:<server>`, as the plugin's MCP servers are named. */
  name: string;
  command: string;
  args: string[];
  /** Laid over the run's environment; CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA are set. */
  env: Record<string, string>;
  /** Lower-case extension with its dot → the LSP language id. */
  extensionToLanguage: Record<string, string>;
  initializationOptions?: unknown;
  /** Sent with workspace/didChangeConfiguration, and answered to workspace/configuration. */
  settings?: unknown;
  startupTimeoutMs: number;
  /** False: a server that crashed is not started again. */
  restartOnCrash: boolean;
  /** How many times a server that failed or crashed is started again, at most. */
  maxRestarts: number;
  /** Where it is declared. */
  file: string;
  key: string;
};

export type LspConfig = { servers: LspServerConfig[]; diagnostics: PluginDiagnostic[] };

/** The servers of the plugins, in order; a server handles the extensions no earlier one claims. */
export function lspServersOf(plugins: readonly Plugin[]): LspConfig {
  const servers: LspServerConfig[] = [];
  const diagnostics: PluginDiagnostic[] = [];
  const claimed = new Map<string, string>();
  for (const plugin of plugins) {
    for (const entry of plugin.lspServers) {
      const parsed = parseLspServer(plugin, entry.name, entry.raw);
      const where = { file: entry.file, key: entry.key };
      if (typeof parsed === "string") {
        diagnostics.push({ ...where, message: `LSP server "${entry.name}" of plugin ${plugin.name} is not started: ${parsed}` });
        continue;
      }
      const config: LspServerConfig = { ...parsed, ...where };
      for (const extension of Object.keys(config.extensionToLanguage)) {
        const other = claimed.get(extension);
        if (other === undefined) claimed.set(extension, config.name);
        else {
          delete config.extensionToLanguage[extension];
          diagnostics.push({ ...where, message: `LSP server "${entry.name}" of plugin ${plugin.name} does not handle ${extension} files: ${other} does` });
        }
      }
      if (Object.keys(config.extensionToLanguage).length > 0) servers.push(config);
    }
  }
  return { servers, diagnostics };
}

/** One entry, or what is wrong with it ("<field>: …"). Fields it does not know are ignored, as a
 * plugin may be written for a later Claude Code. */
export function parseLspServer(plugin: Pick<Plugin, "name" | "root" | "dataDir">, server: string, raw: unknown): Omit<LspServerConfig, "file" | "key"> | string {
  if (!isJsonObject(raw)) return "must be an object with command and extensionToLanguage";
  const expand = (text: string) => withPluginVariables(text, plugin);
  if (typeof raw.command !== "string" || raw.command.trim() === "") return raw.command === undefined ? "command: required" : "command: must be a non-empty string";
  if (raw.args !== undefined && !(Array.isArray(raw.args) && raw.args.every((arg) => typeof arg === "string"))) return "args: must be a list of strings";
  if (raw.transport !== undefined && raw.transport !== "stdio") return `transport: ${JSON.stringify(raw.transport)} is not supported (only "stdio")`;
  const languages = extensionsOf(raw.extensionToLanguage);
  if (typeof languages === "string") return `extensionToLanguage: ${languages}`;
  if (raw.env !== undefined && !(isJsonObject(raw.env) && Object.values(raw.env).every((value) => typeof value === "string"))) return "env: must be an object of strings";
  const startup = raw.startupTimeout;
  if (startup !== undefined && !(typeof startup === "number" && Number.isInteger(startup) && startup > 0)) return "startupTimeout: must be a whole number of milliseconds above 0";
  if (raw.restartOnCrash !== undefined && typeof raw.restartOnCrash !== "boolean") return "restartOnCrash: must be true or false";
  const restarts = raw.maxRestarts;
  if (restarts !== undefined && !(typeof restarts === "number" && Number.isInteger(restarts) && restarts >= 0)) return "maxRestarts: must be a whole number, 0 or more";
  if (raw.initializationOptions !== undefined && !isJsonObject(raw.initializationOptions)) return "initializationOptions: must be an object";
  if (raw.settings !== undefined && !isJsonObject(raw.settings)) return "settings: must be an object";
  const env = Object.fromEntries(Object.entries((raw.env ?? {}) as Record<string, string>).map(([key, value]) => [key, expand(value)]));
  return {
    name: pluginServerName(plugin.name, server),
    command: expand(raw.command),
    args: ((raw.args ?? []) as string[]).map(expand),
    env: { ...pluginVariables(plugin), ...env },
    extensionToLanguage: languages,
    ...(raw.initializationOptions !== undefined && { initializationOptions: raw.initializationOptions }),
    ...(raw.settings !== undefined && { settings: raw.settings }),
    startupTimeoutMs: startup ?? DEFAULT_STARTUP_TIMEOUT_MS,
    restartOnCrash: raw.restartOnCrash !== false,
    maxRestarts: restarts ?? DEFAULT_MAX_RESTARTS,
  };
}

function extensionsOf(value: unknown): Record<string, string> | string {
  if (value === undefined) return 'required: an object such as { ".ts": "typescript" }';
  if (!isJsonObject(value)) return 'must be an object such as { ".ts": "typescript" }';
  const out: Record<string, string> = {};
  for (const [extension, language] of Object.entries(value)) {
    if (!/^\.[^\s./\\]+$/.test(extension)) return `${JSON.stringify(extension)} is not a file extension (such as ".ts")`;
    if (typeof language !== "string" || language.trim() === "") return `${extension}: the language must be a non-empty string`;
    out[extension.toLowerCase()] = language;
  }
  if (Object.keys(out).length === 0) return "must name at least one extension";
  return out;
}

/** The lower-case extension of `file` with its dot ("" for none). */
export function extensionOf(file: string): string {
  return path.extname(file).toLowerCase();
}
